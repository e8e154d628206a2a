# petspot-location: build, install and package.
#
#   make build            release binaries (Swift runtime linked statically); SCRATCH=DIR builds in DIR
#                         (default .build)
#   make install          into $(DESTDIR)$(PREFIX) (PREFIX=/usr/local by default)
#   make deb              dist/petspot-location_VERSION_ARCH.deb (dpkg-deb)
#   make check-ops        systemd-analyze exposure + deb + lintian (scripts/check-ops)

SWIFT      ?= swift
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
# systemd's own directories, not under PREFIX: units elsewhere are not found.
UNITDIR    ?= /lib/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
MANDIR     ?= $(PREFIX)/share/man
INSTALL    ?= install

SCRATCH    ?= .build
SWIFT_RELEASE_FLAGS = -c release --static-swift-stdlib --scratch-path $(SCRATCH)
# The programs: the daemon, and the clients' multi-call binary (`petspot`) under each name.
PRODUCTS = petspot-locationd petspot-location petspot-report petspot-kiosk
DATADIR    ?= $(PREFIX)/share
BIN_DIR = $(SCRATCH)/release
MAN_DIR = $(SCRATCH)/man

.PHONY: all build man install uninstall deb check-ops clean

all: build

build:
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS)

man: build
	scripts/make-man $(BIN_DIR) $(MAN_DIR)

install: build man
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	# The daemon; the clients' multi-call binary once, as petspot-location, hard-linked under the other names.
	$(INSTALL) -m 0755 $(BIN_DIR)/petspot-locationd $(DESTDIR)$(BINDIR)/petspot-locationd
	$(INSTALL) -m 0755 $(BIN_DIR)/petspot $(DESTDIR)$(BINDIR)/petspot-location
	for p in petspot-report petspot-kiosk; do ln -f $(DESTDIR)$(BINDIR)/petspot-location $(DESTDIR)$(BINDIR)/$$p; done
	$(INSTALL) -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR)
	sed 's|/usr/bin/petspot-locationd|$(BINDIR)/petspot-locationd|; s|/etc/petspot/|$(SYSCONFDIR)/petspot/|g' \
		systemd/petspot-locationd.service > $(DESTDIR)$(UNITDIR)/petspot-locationd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/petspot-locationd.service
	$(INSTALL) -m 0644 systemd/petspot-locationd.socket $(DESTDIR)$(UNITDIR)/
	sed 's|/usr/bin/petspot-kiosk|$(BINDIR)/petspot-kiosk|; s|/etc/petspot/|$(SYSCONFDIR)/petspot/|g' \
		systemd/petspot-kiosk.service > $(DESTDIR)$(UNITDIR)/petspot-kiosk.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/petspot-kiosk.service
	$(INSTALL) -m 0644 systemd/petspot-kiosk-browser.service $(DESTDIR)$(UNITDIR)/
	$(INSTALL) -m 0644 systemd/petspot-kiosk.sysusers $(DESTDIR)$(SYSUSERSDIR)/petspot-kiosk.conf
	# The kiosk's static files (found next to ../share/petspot-kiosk from the binary).
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/petspot-kiosk/static
	$(INSTALL) -m 0644 Sources/PetSpotKiosk/Resources/static/* $(DESTDIR)$(DATADIR)/petspot-kiosk/static/
	$(INSTALL) -m 0644 systemd/petspot-locationd.sysusers $(DESTDIR)$(SYSUSERSDIR)/petspot-locationd.conf
	$(INSTALL) -m 0644 systemd/petspot-locationd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/petspot-locationd.conf
	$(INSTALL) -d $(DESTDIR)$(SYSCONFDIR)/petspot
	# Never overwrite an administrator's configuration.
	test -e $(DESTDIR)$(SYSCONFDIR)/petspot/locationd.toml || \
		$(INSTALL) -m 0644 config/locationd.toml $(DESTDIR)$(SYSCONFDIR)/petspot/locationd.toml
	test -e $(DESTDIR)$(SYSCONFDIR)/petspot/kiosk.toml || \
		$(INSTALL) -m 0644 config/kiosk.toml $(DESTDIR)$(SYSCONFDIR)/petspot/kiosk.toml
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0644 $(MAN_DIR)/*.1.gz $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(MAN_DIR)/*.8.gz $(DESTDIR)$(MANDIR)/man8/
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		systemd-sysusers petspot-locationd.conf || true; \
		systemd-sysusers petspot-kiosk.conf || true; \
		systemd-tmpfiles --create petspot-locationd.conf || true; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
		echo "Installed. Start with: systemctl enable --now petspot-locationd.socket"; \
	fi

uninstall:
	for p in $(PRODUCTS); do rm -f $(DESTDIR)$(BINDIR)/$$p; done
	rm -f $(DESTDIR)$(UNITDIR)/petspot-locationd.service $(DESTDIR)$(UNITDIR)/petspot-locationd.socket
	rm -f $(DESTDIR)$(UNITDIR)/petspot-kiosk.service $(DESTDIR)$(UNITDIR)/petspot-kiosk-browser.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/petspot-kiosk.conf
	rm -rf $(DESTDIR)$(DATADIR)/petspot-kiosk
	rm -f $(DESTDIR)$(SYSUSERSDIR)/petspot-locationd.conf $(DESTDIR)$(TMPFILESDIR)/petspot-locationd.conf
	rm -f $(DESTDIR)$(MANDIR)/man8/petspot-locationd.8.gz $(DESTDIR)$(MANDIR)/man1/petspot-location.1.gz \
		$(DESTDIR)$(MANDIR)/man1/petspot-report.1.gz $(DESTDIR)$(MANDIR)/man8/petspot-kiosk.8.gz

deb: build man
	scripts/build-deb $(BIN_DIR) $(MAN_DIR) dist

check-ops:
	scripts/check-ops

clean:
	rm -rf dist $(MAN_DIR)
