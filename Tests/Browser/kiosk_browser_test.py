#!/usr/bin/python3
"""End-to-end test of petspot-kiosk in a real browser.

Headless Chromium (Debian's chromium + chromium-driver) driven by WebDriver
(Debian's python3-selenium) against real processes: petspot-locationd on a
simulated source, and petspot-kiosk. Five stations:

  A  daemon with a [[policy.rules]] entry authorizing this uid (GPS fills);
     photo_sources = ["camera", "file"]
  B  daemon whose prompt answers "deny" (the permission alert); camera only
  C  no daemon at all (unreachable), and a short idle reset (also: the welcome
     screen left past it still starts a visit at the tap)
  D  as A, camera only, with C's short idle reset: a whole report after the
     welcome screen idled
  E  as A, camera only, its photo cache and outbox on small tmpfs mounts (a
     full disk at the photo and at submit; the test then makes room)

The browser walks as the public does: taps (the on-screen keyboard for every
text of the whole reports), Chromium's fake camera for the photo, and on every
screen it stops at, axe-core (vendor/axe.min.js) for WCAG 2.0/2.1/2.2 A and AA,
controls of 48 px or more, and no sideways scrolling at 100% and 200% zoom.

Scenarios follow seed 003 section 7. Screenshots of every step at 1080x1920
(portrait) and 1920x1080 (landscape) go to --screenshots. Prints one line per
scenario, a benchmark line, and "N passed, N failed"; exits 1 on a failure.

Usage: kiosk_browser_test.py --bin .build/debug [--screenshots docs/kiosk]
"""
import argparse
import base64
import json
import os
import shutil
import socket
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import http.cookiejar

from selenium import webdriver
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException


def detached(error):
    """Whether ChromeDriver failed because the element left the document
    while a script read it (a re-render, e.g. after a language switch): it
    reports that as an unknown error, not as a stale element."""
    return "does not belong to the document" in (error.msg or "")


PORTRAIT = (1080, 1920)
LANDSCAPE = (1920, 1080)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# axe-core, vendored (Tests/Browser/vendor/README.md): run on every screen the test looks at.
AXE_SOURCE = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor", "axe.min.js")).read()
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=60, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError("timed out waiting for " + what)


class Station:
    """A petspot-kiosk (and maybe its petspot-locationd) in a temporary directory."""

    def __init__(self, name, root, bin_dir, policy=None, idle_reset=120, photo_sources=None, small_disks=False):
        """small_disks: the photo cache and the outbox each on a tmpfs too small for them (the station's
        own free-space checks then refuse: the draft cache keeps 20 MiB free, the outbox 4 MiB), so a
        full disk can be shown and then made room on (``resize``); needs root to mount, else
        ``self.small_disks`` is False."""
        self.name = name
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.socket = os.path.join(self.dir, "locationd.sock")
        self.outbox = os.path.join(self.dir, "outbox")
        self.cache = os.path.join(self.dir, "cache")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.processes = []
        self.mounts = []
        self.small_disks = small_disks and all(self.mount(path, "1m") for path in (self.cache, self.outbox))
        if policy is not None:
            config = os.path.join(self.dir, "locationd.toml")
            with open(config, "w") as f:
                f.write(
                    '[daemon]\nsocket = "%s"\nsocket_mode = "0600"\nstate_dir = "%s/state"\n\n'
                    '[source]\nkind = "simulated"\nfallback = "static"\n\n'
                    '[source.static]\nlatitude = 52.2297\nlongitude = 21.0122\nhorizontal_accuracy = 15.0\n\n'
                    '[source.simulated]\nscenario = "%s/config/scenarios/demo.json"\n\n%s\n'
                    % (self.socket, self.dir, REPO, policy))
            self.start([os.path.join(bin_dir, "petspot-locationd"), "--config", config], "locationd")
            wait_for(lambda: os.path.exists(self.socket), what=name + " daemon socket")
        config = os.path.join(self.dir, "kiosk.toml")
        with open(config, "w") as f:
            f.write('[kiosk]\nlisten = "127.0.0.1:%d"\nidle_reset = %d\nlanguage = "en"\n%s\n'
                    '[location]\nsocket = "%s"\ngps_timeout = 5\n\n[outbox]\npath = "%s"\n'
                    % (self.port, idle_reset,
                       "photo_sources = %s\n" % json.dumps(photo_sources) if photo_sources else "",
                       self.socket, self.outbox))
        env = dict(os.environ, XDG_CACHE_HOME=self.cache)
        self.start([os.path.join(bin_dir, "petspot-kiosk"), "--config", config], "kiosk", env)

        def up():
            try:
                return urllib.request.urlopen(self.url + "/healthz", timeout=1).status == 200
            except OSError:
                return False
        wait_for(up, what=name + " kiosk")

    def start(self, argv, label, env=None):
        log = open(os.path.join(self.dir, label + ".log"), "w")
        self.processes.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env))

    def mount(self, path, size):
        """A tmpfs of `size` at `path`; False when this machine does not let the test mount one."""
        os.makedirs(path, exist_ok=True)
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", path],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if result.returncode == 0:
            self.mounts.append(path)
        return result.returncode == 0

    def resize(self, path, size):
        """Grows (or shrinks) the tmpfs at `path`: the staff making room."""
        subprocess.run(["mount", "-o", "remount,size=" + size, path], check=True)

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        for path in reversed(self.mounts):
            subprocess.run(["umount", "-l", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.mounts = []

    def drafts(self):
        root = os.path.join(self.cache, "PetSpot", "ReportFoundPet")
        found = []
        for folder, _, files in os.walk(root):
            found += [os.path.join(folder, name) for name in files]
        return found

    def admin_status(self):
        """The kiosk's /admin/status page (this test is on the station's loopback)."""
        return urllib.request.urlopen(self.url + "/admin/status", timeout=5).read().decode()

    def admin_figure(self, name):
        """One figure of /admin/status by its id (admin.visits, admin.locationRefusals, ...)."""
        page = self.admin_status()
        marker = 'id="admin.%s">' % name
        return page.split(marker, 1)[1].split("<", 1)[0] if marker in page else None

    def reports(self):
        path = os.path.join(self.outbox, "outbox.sqlite")
        if not os.path.exists(path):
            return []
        with sqlite3.connect(path) as db:
            return [json.loads(row[0]) for row in db.execute("SELECT announcement FROM report ORDER BY seq")]


class Kiosk:
    """The browser, with helpers named after what a person does."""

    def __init__(self, javascript=True, camera="fake"):
        """camera: "fake", Chromium's fake camera (a moving test pattern); "none", the machine's own, and
        a test machine has none; "blocked", the fake camera with every camera request denied (as the
        station's policy does for any origin but the kiosk's); "policy", the fake camera and no
        prompt answered: only Chromium's managed policy decides. The prompt is otherwise answered
        "allow", as the station's policy does for the kiosk's origin (config/chromium-kiosk-policy.json)."""
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US",
                     "--window-size=1080,1920",
                     ] + ([] if camera == "policy" else
                          ["--use-fake-ui-for-media-stream" + ("=deny" if camera == "blocked" else "")])
        if camera in ("fake", "blocked", "policy"):
            arguments.append("--use-fake-device-for-media-stream")
        for argument in arguments:
            options.add_argument(argument)
        options.add_experimental_option("prefs", {
            "intl.accept_languages": "en-US,en",
            "profile.managed_default_content_settings.javascript": 1 if javascript else 2})
        service = ChromeService(executable_path="/usr/bin/chromedriver")
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(60)
        self.smallest_key = None  # (id, width, height, window, layout) of the smallest key measured
        self.size(PORTRAIT)

    def size(self, size):
        width, height = size
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.current_size = size

    def quit(self):
        self.driver.quit()

    def open(self, url):
        self.driver.get(url)

    def el(self, element_id, timeout=60):
        return WebDriverWait(self.driver, timeout).until(lambda d: d.find_element(By.ID, element_id))

    def visible(self, element_id):
        try:
            found = self.driver.find_elements(By.ID, element_id)
            return bool(found) and found[0].is_displayed()
        except StaleElementReferenceException:
            return False  # the page was replaced while looking
        except WebDriverException as error:
            if detached(error):
                return False  # the same race, as ChromeDriver reports it mid-script
            raise

    def wait_visible(self, element_id, timeout=60):
        WebDriverWait(self.driver, timeout).until(lambda d: self.visible(element_id))
        return self.el(element_id)

    def tap(self, element_id):
        element = self.el(element_id)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def type(self, element_id, text, clear=True):
        element = self.el(element_id)
        if clear:
            element.clear()
        element.send_keys(text)

    # The on-screen keyboard (kiosk-keyboard.js): a visitor types by tapping its keys, never on a keyboard.
    POLISH_LETTERS = "ąćęłńóśźż"

    def keyboard_open(self):
        return self.visible("osk")

    def keyboard_geometry(self, field_id):
        """The keyboard's and the focused field's boxes, every key's size and name, as the page lays them out."""
        return self.driver.execute_script("""
            const board = document.getElementById('osk'), field = document.getElementById(arguments[0]);
            const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height}; };
            const keys = Array.from(board.querySelectorAll('button')).map(b => Object.assign(box(b), {
              id: b.id, type: b.getAttribute('type'), name: (b.getAttribute('aria-label') || b.textContent).trim()}));
            return {board: box(board), field: box(field), keys: keys, focused: document.activeElement === field,
                    role: board.getAttribute('role'), label: board.getAttribute('aria-label') || '',
                    ariaHidden: board.closest('[aria-hidden=true]') !== null, viewport: window.innerHeight,
                    layout: board.getAttribute('data-layout')};""", field_id)

    def check_keyboard(self, field_id):
        """The keyboard is open, is a named group, its keys are named buttons of 56x56 px or more, and it
        does not cover the focused field (which is on the screen above it)."""
        WebDriverWait(self.driver, 10).until(lambda d: self.keyboard_open())
        g = self.keyboard_geometry(field_id)
        check(g["focused"], "%s keeps the focus" % field_id)
        check(g["role"] == "group" and g["label"] and not g["ariaHidden"], "keyboard: a named group: %r" % g)
        for key in g["keys"]:
            check(key["type"] == "button" and key["name"], "key %s: a named button" % key["id"])
            check(key["width"] >= 56 and key["height"] >= 56, "key %s is %.0fx%.0f px" % (key["id"], key["width"], key["height"]))
            if self.smallest_key is None or min(key["width"], key["height"]) < min(self.smallest_key[1], self.smallest_key[2]):
                self.smallest_key = (key["id"], key["width"], key["height"], "%dx%d" % self.current_size, g["layout"])
        board, field = g["board"], g["field"]
        check(field["bottom"] <= board["top"] and field["top"] >= 0,
              "%s (%.0f-%.0f) is on the screen above the keyboard (top %.0f, window %d)"
              % (field_id, field["top"], field["bottom"], board["top"], g["viewport"]))
        return g

    def key(self, key_id):
        """Taps one key of the on-screen keyboard (it is fixed at the bottom: no scrolling)."""
        self.driver.find_element(By.ID, key_id).click()

    def has_key(self, key_id):
        return bool(self.driver.find_elements(By.ID, key_id))

    def tap_key_times(self, field_id, key_id, count):
        """Taps the field, then one key of the on-screen keyboard `count` times."""
        self.tap(field_id)
        self.check_keyboard(field_id)
        for _ in range(count):
            self.key(key_id)

    def focused(self):
        """The id of the element that has the focus."""
        return self.driver.execute_script("return document.activeElement ? document.activeElement.id : ''")

    def wait_focused(self, element_id, timeout=10):
        WebDriverWait(self.driver, timeout).until(lambda d: self.focused() == element_id)

    def tap_type(self, field_id, text):
        """Taps the field, then types text on the on-screen keyboard, key by key: osk.shift before a
        capital, the layout keys (Polish letters, symbols, letters) when a key is not on the layout
        shown; a backspace character ("\\b") taps osk.backspace. Checks the keyboard's geometry on opening and at the end."""
        self.tap(field_id)
        self.check_keyboard(field_id)
        for character in text:
            if character == "\b":
                self.key("osk.backspace")
                continue
            if character == " ":
                self.key("osk.space")
                continue
            lower = character.lower()
            key_id = "osk.key." + lower
            if not self.has_key(key_id) and self.has_key("osk.letters"):
                self.key("osk.letters")
            if not self.has_key(key_id) and lower in self.POLISH_LETTERS and self.has_key("osk.polish"):
                self.key("osk.polish")
            if not self.has_key(key_id) and self.has_key("osk.symbols"):
                self.key("osk.symbols")
            check(self.has_key(key_id), "no key %s for %r in %s" % (key_id, character, field_id))
            if character != lower:
                self.key("osk.shift")
                check(self.el("osk.shift").get_attribute("aria-pressed") == "true", "shift on")
            self.key(key_id)
        self.check_keyboard(field_id)

    def close_keyboard(self):
        self.key("osk.done")
        WebDriverWait(self.driver, 10).until(lambda d: not self.keyboard_open())

    def _fresh(self, element_id, read):
        """read(element), finding the element again when a navigation replaced it meanwhile."""
        for _ in range(5):
            try:
                return read(self.el(element_id))
            except StaleElementReferenceException:
                continue  # the page was replaced between finding and reading: find it again
            except WebDriverException as error:
                if not detached(error):
                    raise
                continue  # the same race, as ChromeDriver reports it mid-script
        return read(self.el(element_id))

    def value(self, element_id):
        return self._fresh(element_id, lambda e: e.get_attribute("value"))

    def text(self, element_id):
        return self._fresh(element_id, lambda e: e.text)

    def page(self):
        return self.driver.page_source

    def path(self):
        return "/" + self.driver.current_url.split("/", 3)[3] if self.driver.current_url.count("/") >= 3 else "/"

    def cancel_visit(self):
        """Cancel report, and wait until the welcome page it leads to is shown: a scenario
        must not end with the cancel still on its way (it would land on the next page)."""
        self.tap("reportFound.cancelButton.tap")
        self.wait_visible("welcome.startButton.tap")

    def wait_path(self, path, timeout=60):
        WebDriverWait(self.driver, timeout).until(lambda d: self.path().split("#")[0].split("?")[0] == path)

    def describe(self):
        """What the page shows now, for a failure report."""
        try:
            return self.driver.execute_script("""
                const q = id => document.getElementById(id);
                const gps = q('animalDescription.requestGPSButton.tap'), alert = q('permissionAlert');
                const text = e => e ? (e.hidden ? '(hidden) ' : '') + e.textContent.trim().slice(0, 160) : '(none)';
                return ['page: ' + location.pathname + location.search + ' readyState=' + document.readyState,
                        'gps button: ' + (gps ? gps.textContent.trim() + ' aria-busy=' + gps.getAttribute('aria-busy') : '(none)'),
                        'alert: ' + text(alert), 'gps error: ' + text(q('animalDescription.gpsErrorText')),
                        'gps helper: ' + text(q('animalDescription.gpsHelperText')),
                        'toast: ' + text(q('reportFound.toast') || q('animalPhoto.toast')), 'idle prompt: ' + text(q('idlePrompt'))].join('\\n');""")
        except Exception as error:  # the browser itself may be the problem
            return "page state unavailable: %s" % error

    def screenshot(self, directory, name, screen_only=False):
        """The whole page at the current size (what the screen shows, plus anything below the fold);
        screen_only: what the screen shows (the on-screen keyboard docked at its bottom)."""
        if not directory:
            return
        width, height = self.current_size
        if screen_only:
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        else:
            full = self.driver.execute_script(
                "return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": max(height, full), "scale": 1}})
        orientation = "portrait" if height > width else "landscape"
        path = os.path.join(directory, "%s-%s.png" % (name, orientation))
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def touch_targets_too_small(self):
        """Visible buttons, links, inputs and selects smaller than 48 px in either direction."""
        return self.driver.execute_script("""
            const small = [];
            for (const e of document.querySelectorAll('button, a, select, input:not([type=hidden]), textarea, label.choice')) {
              const r = e.getBoundingClientRect();
              if (r.width === 0 && r.height === 0) continue;            // not shown
              if (e.classList.contains('default-submit')) continue;      // off-screen Enter target
              if (e.type === 'radio' || e.type === 'file') continue;    // inside a larger label
              if (r.width < 48 || r.height < 48) small.push((e.id || e.tagName) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
            }
            return small;""")

    def smallest_control(self):
        """The visible control with the smallest shorter side: (id, width, height)."""
        return self.driver.execute_script("""
            let best = null;
            for (const e of document.querySelectorAll('button, a, select, input:not([type=hidden]), textarea, label.choice')) {
              const r = e.getBoundingClientRect();
              if (r.width === 0 && r.height === 0) continue;
              if (e.classList.contains('default-submit') || e.type === 'radio' || e.type === 'file') continue;
              if (!best || Math.min(r.width, r.height) < Math.min(best[1], best[2])) best = [e.id || e.tagName, r.width, r.height];
            }
            return best;""")

    def horizontal_overflow(self):
        return self.driver.execute_script(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth")

    def axe(self):
        """axe-core's WCAG 2.0/2.1/2.2 A and AA violations on the page as it is now (one line each)."""
        if not self.driver.execute_script("return !!window.axe"):
            self.driver.execute_script(AXE_SOURCE)
        return self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})
              .then(r => done(r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.nodes.length + ' node(s): '
                  + v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')).join('; '))))
              .catch(e => done(['axe failed: ' + e]));""", AXE_TAGS)

    def zoomed_overflow(self):
        """At 200% zoom (the same screen with half as many CSS pixels each way): the elements that stick
        out sideways, if the page scrolls sideways."""
        width, height = self.current_size
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width // 2, "height": height // 2, "deviceScaleFactor": 2, "mobile": False})
        try:
            return self.driver.execute_script("""
                const root = document.documentElement;
                if (root.scrollWidth <= root.clientWidth) return [];
                return Array.from(document.querySelectorAll('body *')).filter(e => {
                  const r = e.getBoundingClientRect(); return r.width > 0 && r.right > root.clientWidth + 1; })
                  .slice(0, 6).map(e => (e.id || e.tagName + '.' + e.className) + ' right=' + Math.round(e.getBoundingClientRect().right));""") or []
        finally:
            self.size((width, height))

    def language(self):
        return self.driver.execute_script("return document.documentElement.lang")

    def camera_live(self):
        """The live view shows frames from the camera."""
        return self.driver.execute_script("""
            const v = document.getElementById('animalPhoto.camera.video');
            return !!v && !!v.srcObject && v.readyState >= 2 && v.videoWidth > 0;""")

    def camera_on(self):
        """A camera track is still running in the page (its light would be on)."""
        return self.driver.execute_script("""
            const v = document.getElementById('animalPhoto.camera.video');
            return !!v && !!v.srcObject && v.srcObject.getTracks().some(t => t.readyState === 'live');""")


def make_images(kiosk, directory, base_url):
    """Real JPEG, PNG and WEBP files drawn by the browser, a HEIC made from the JPEG by heif-enc, a GIF by hand, and a text file."""
    kiosk.open(base_url + "/")
    files = {}
    for kind, mime in [("jpg", "image/jpeg"), ("png", "image/png"), ("webp", "image/webp")]:
        data_url = kiosk.driver.execute_script("""
            const c = document.createElement('canvas'); c.width = 640; c.height = 480;
            const g = c.getContext('2d');
            g.fillStyle = '#9fd3f7'; g.fillRect(0, 0, 640, 480);
            g.fillStyle = '#6bbf59'; g.fillRect(0, 360, 640, 120);
            g.fillStyle = '#c8742c';
            g.beginPath(); g.ellipse(320, 260, 150, 130, 0, 0, 7); g.fill();
            g.beginPath(); g.moveTo(200, 190); g.lineTo(230, 60); g.lineTo(290, 150); g.fill();
            g.beginPath(); g.moveTo(440, 190); g.lineTo(410, 60); g.lineTo(350, 150); g.fill();
            g.fillStyle = '#222'; g.beginPath(); g.arc(270, 240, 16, 0, 7); g.arc(370, 240, 16, 0, 7); g.fill();
            g.beginPath(); g.ellipse(320, 300, 22, 14, 0, 0, 7); g.fill();
            return c.toDataURL(arguments[0], 0.9);""", mime)
        path = os.path.join(directory, "found-dog." + kind)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data_url.split(",", 1)[1]))
        files[kind] = path
    gif = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00"
           b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

    # A real HEIC (libheif's heif-enc, Debian libheif-examples): the kiosk decodes it to deliver a JPEG.
    files["heic"] = os.path.join(directory, "found-cat.heic")
    subprocess.run(["heif-enc", "--quality", "80", files["jpg"], "--output", files["heic"]], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    for kind, data in [("gif", gif), ("txt", b"This is not a photo.\n")]:
        path = os.path.join(directory, ("notes." if kind == "txt" else "found-cat.") + kind)
        with open(path, "wb") as f:
            f.write(data)
        files[kind] = path
    return files


class Run:
    def __init__(self, args):
        self.args = args
        self.passed = 0
        self.failed = 0
        self.gps_fill_ms = []
        self.render_ms = []
        self.axe = []  # (screen, size, language, violations) for every screen looked at
        self.smallest_control = None  # (id, width, height, screen, size)
        self.browser = None  # the Kiosk whose state a failure report describes

    def scenario(self, name, function, browser=None):
        if self.args.only and not any(part and part in name for part in self.args.only.split(",")):
            return
        started = time.time()
        try:
            function()
            self.passed += 1
            print("ok     %-58s %5.1f s" % (name, time.time() - started), flush=True)
        except Exception:
            self.failed += 1
            print("FAILED %-58s %5.1f s" % (name, time.time() - started), flush=True)
            traceback.print_exc()
            if self.browser is not None:
                print(self.browser.describe(), flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


# What a visitor's page must never show when the GPS is refused (the administrator's details
# go to the log and /admin/status).
def administrator_details(user, uid):
    return [user, "uid %d" % uid, "(uid", "sudo", "petspot-location authorization", "systemctl", "/etc/", ".toml",
            "[[policy.rules]]"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="where petspot-kiosk and petspot-locationd are")
    parser.add_argument("--screenshots", default="", help="directory for the screenshots (kept)")
    parser.add_argument("--only", default="", help="run only the scenarios whose name contains this (or one of these, comma-separated)")
    parser.add_argument("--gps-taps", type=int, default=30,
                        help="GPS taps the benchmark times (3 a visit, the visit's budget; more for a steadier p99)")
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin)
    shots = os.path.abspath(args.screenshots) if args.screenshots else ""
    if shots:
        os.makedirs(shots, exist_ok=True)
    root = tempfile.mkdtemp(prefix="petspot-kiosk-browser-")
    uid = os.getuid()
    stations = {}
    kiosk = None
    run = Run(args)
    try:
        authorized = ('[policy]\ndefault = "notDetermined"\nprompt = "deny"\n\n'
                      '[[policy.rules]]\nuid = %d\nstatus = "authorized"\naccuracy = "full"\n' % uid)
        stations["A"] = Station("A", root, bin_dir, policy=authorized, photo_sources=["camera", "file"])
        stations["B"] = Station("B", root, bin_dir, policy='[policy]\ndefault = "notDetermined"\nprompt = "deny"\n')
        stations["C"] = Station("C", root, bin_dir, policy=None, idle_reset=12)
        stations["D"] = Station("D", root, bin_dir, policy=authorized, idle_reset=12)
        stations["E"] = Station("E", root, bin_dir, policy=authorized, small_disks=True)
        kiosk = Kiosk()
        run.browser = kiosk
        images = make_images(kiosk, root, stations["A"].url)
        A, B, C, D, E = stations["A"], stations["B"], stations["C"], stations["D"], stations["E"]

        def start(station):
            kiosk.open(station.url + "/")
            if kiosk.visible("reportFound.cancelButton.tap"):
                kiosk.tap("reportFound.cancelButton.tap")
            kiosk.wait_visible("welcome.startButton.tap")

        def upload(path):
            kiosk.el("animalPhoto.fileInput.input").send_keys(path)

        def take_photo(screenshot=None):
            """The station's camera, by taps: open the live view, take the picture; returns the frame's size."""
            kiosk.tap("animalPhoto.camera")
            kiosk.wait_visible("animalPhoto.cameraView")
            WebDriverWait(kiosk.driver, 30).until(lambda d: kiosk.camera_live())
            check(kiosk.camera_on(), "the camera runs while its view is open")
            if screenshot:
                look(screenshot)
            size = kiosk.driver.execute_script(
                "const v = document.getElementById('animalPhoto.camera.video'); return [v.videoWidth, v.videoHeight];")
            kiosk.tap("animalPhoto.capture")
            kiosk.wait_visible("animalPhoto.confirmationCard")
            check(kiosk.text("animalPhoto.dimensions.label") == "%d × %d px" % tuple(size),
                  "the card shows the camera's frame: %r, frame %r" % (kiosk.text("animalPhoto.dimensions.label"), size))
            return size

        def to_details(station, photo="camera"):
            start(station)
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            if photo == "camera":
                take_photo()
            else:
                upload(images[photo])
            kiosk.wait_visible("animalPhoto.confirmationCard")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")

        def look(name, screen_only=False):
            """Every screen the test stops at: no sideways scrolling (also at 200% zoom), no control under
            48 px, no axe-core violation (WCAG 2.0/2.1/2.2 A and AA); then its screenshot."""
            check(not kiosk.horizontal_overflow(), name + ": the page scrolls sideways")
            small = kiosk.touch_targets_too_small()
            check(not small, name + ": touch targets under 48 px: %s" % small)
            smallest = kiosk.smallest_control()
            if smallest and (run.smallest_control is None
                             or min(smallest[1], smallest[2]) < min(run.smallest_control[1], run.smallest_control[2])):
                run.smallest_control = (smallest[0], smallest[1], smallest[2], name, "%dx%d" % kiosk.current_size)
            violations = kiosk.axe()
            width, height = kiosk.current_size
            run.axe.append((name, "%dx%d" % (width, height), kiosk.language(), len(violations)))
            check(not violations, name + ": axe-core finds %d violation(s):\n  %s" % (len(violations), "\n  ".join(violations)))
            if not kiosk.keyboard_open():
                wide = kiosk.zoomed_overflow()
                check(not wide, name + ": at 200%% zoom the page scrolls sideways: %s" % wide)
            kiosk.screenshot(shots, name, screen_only=screen_only)

        def complete_report(size):
            def scenario():
                kiosk.size(size)
                start(A)
                look("1-welcome")
                kiosk.tap("welcome.startButton.tap")
                kiosk.wait_path("/report/photo")
                look("2-photo-empty")
                take_photo(screenshot="2-photo-camera")
                check(not kiosk.camera_on(), "the camera is off once the picture is taken")
                check(kiosk.text("animalPhoto.fileName.label") == "camera.jpg", "file name on the card")
                check(kiosk.text("animalPhoto.fileSize.label").endswith("KB"), "size in KB")
                look("3-photo-confirmed")
                kiosk.tap("animalPhoto.continue")
                kiosk.wait_path("/report/details")
                check(kiosk.value("animalDescription.datePicker.tap") == time.strftime("%Y-%m-%d"), "date defaults to today")
                # Every text below is typed by taps on the on-screen keyboard (no send_keys).
                Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("dog")
                kiosk.tap_type("animalDescription.raceTextField.input", "Beaglx\be")  # a slip, then backspace
                check(kiosk.value("animalDescription.raceTextField.input") == "Beagle",
                      "race: %r" % kiosk.value("animalDescription.raceTextField.input"))
                kiosk.tap("animalDescription.genderMale.tap")
                check(not kiosk.keyboard_open(), "the keyboard closes when a field is left for a button")
                kiosk.tap_type("animalDescription.ageTextField.input", "3")
                check(kiosk.el("osk").get_attribute("data-layout") == "numeric", "age: the digit pad")
                kiosk.tap_type("animalDescription.chipNumberTextField.input", "123456")
                check(kiosk.value("animalDescription.chipNumberTextField.input") == "12345-6",
                      "chip number grouped while tapping: %r" % kiosk.value("animalDescription.chipNumberTextField.input"))
                kiosk.tap_type("animalDescription.chipNumberTextField.input", "7890123456789")
                check(kiosk.value("animalDescription.chipNumberTextField.input") == "12345-67890-12345",
                      "chip number formatted, 15 digits at most: %r" % kiosk.value("animalDescription.chipNumberTextField.input"))
                kiosk.tap_type("animalDescription.chipNumberTextField.input", "\b")
                check(kiosk.value("animalDescription.chipNumberTextField.input") == "12345-67890-1234",
                      "backspace in the chip number: %r" % kiosk.value("animalDescription.chipNumberTextField.input"))
                kiosk.tap_type("animalDescription.chipNumberTextField.input", "5")
                kiosk.tap_type("animalDescription.petNameTextField.input", "Rex")
                description = "Friendly, red collar, found near the park."
                kiosk.tap_type("animalDescription.descriptionTextArea.input", description[:9])
                check(kiosk.text("animalDescription.descriptionTextArea.hint") == "9/500",
                      "description counter while tapping: %r" % kiosk.text("animalDescription.descriptionTextArea.hint"))
                kiosk.tap_type("animalDescription.descriptionTextArea.input", description[9:])
                check(kiosk.value("animalDescription.descriptionTextArea.input") == description,
                      "description: %r" % kiosk.value("animalDescription.descriptionTextArea.input"))
                check(kiosk.text("animalDescription.descriptionTextArea.hint") == "%d/500" % len(description),
                      "description counter")
                look("4-details-keyboard", screen_only=True)
                kiosk.close_keyboard()
                check(kiosk.driver.execute_script("return document.activeElement === document.body"),
                      "Done blurs the field")
                started = time.perf_counter()
                kiosk.tap("animalDescription.requestGPSButton.tap")
                WebDriverWait(kiosk.driver, 10).until(
                    lambda d: kiosk.value("animalDescription.latitudeTextField.input") != "")
                run.gps_fill_ms.append((time.perf_counter() - started) * 1000)
                kiosk.wait_visible("animalDescription.gpsHelperText")
                helper = kiosk.text("animalDescription.gpsHelperText")
                check(helper.startswith("GPS capture successful"), "GPS helper text: %r" % helper)
                latitude = kiosk.value("animalDescription.latitudeTextField.input")
                longitude = kiosk.value("animalDescription.longitudeTextField.input")
                check(abs(float(latitude) - 52.23) < 0.1 and abs(float(longitude) - 21.01) < 0.1,
                      "coordinates from the daemon: %s, %s" % (latitude, longitude))
                look("4-details-gps-filled")
                kiosk.tap("animalDescription.continueButton.tap")
                kiosk.wait_path("/report/contact")
                look("5-contact-empty")
                kiosk.tap_type("contactInformation.phoneTextField.input", "+48 600 123 456")
                check(kiosk.el("osk").get_attribute("data-layout") == "tel" and not kiosk.has_key("osk.key.a"),
                      "phone: the digit pad")
                look("5-contact-keyboard-digits", screen_only=True)
                kiosk.tap_type("contactInformation.emailTextField.input", "finder@example.com")
                check(kiosk.el("osk").get_attribute("data-layout") == "email", "email: the email layout")
                look("5-contact-keyboard-email", screen_only=True)
                kiosk.tap_type("contactInformation.rewardTextField.input", "A coffee")
                kiosk.tap_type("contactInformation.caregiverPhoneTextField.input", "600 654 321")
                kiosk.tap_type("contactInformation.addressTextArea.input", "Łąkowa 1, Warszawa")
                for field_id, typed in [("phoneTextField", "+48 600 123 456"), ("emailTextField", "finder@example.com"),
                                        ("rewardTextField", "A coffee"), ("caregiverPhoneTextField", "600 654 321"),
                                        ("addressTextArea", "Łąkowa 1, Warszawa")]:
                    value = kiosk.value("contactInformation.%s.input" % field_id)
                    check(value == typed, "%s: %r typed as %r" % (field_id, typed, value))
                before = len(A.reports())
                kiosk.tap("contactInformation.submitButton.tap")
                kiosk.wait_path("/report/thanks")
                reference = kiosk.text("thankYou.reference.label")
                check(reference.startswith("PS-") and len(reference) == 11, "reference %r" % reference)
                look("6-thank-you")
                reports = A.reports()
                check(len(reports) == before + 1, "one report queued in the outbox")
                report = reports[-1]
                check(report["id"].replace("-", "").upper().startswith(reference[3:]), "reference names the report")
                check("%.6f" % report["latitude"] == latitude and "%.6f" % report["longitude"] == longitude,
                      "the outbox report carries the daemon's coordinates: %s,%s vs %s,%s"
                      % (report["latitude"], report["longitude"], latitude, longitude))
                check(report.get("chipNumber") == "123456789012345", "chip number digits in the report")
                typed = {"race": "Beagle", "petName": "Rex", "description": description}
                for name, value in typed.items():
                    check(report.get(name) == value, "the report's %s: %r" % (name, report.get(name)))
                contact = report.get("contact", {})
                check(contact.get("email") == "finder@example.com" and contact.get("reward") == "A coffee"
                      and "".join(c for c in contact.get("phone", "") if c.isdigit()) == "48600123456",
                      "the report's contact: %r" % contact)
                check(A.drafts() == [], "the photo draft is deleted after submit")
                kiosk.tap("thankYou.startOverButton.tap")
                kiosk.wait_visible("welcome.startButton.tap")
                kiosk.driver.back()
                time.sleep(0.5)
                check("Beagle" not in kiosk.page() and "finder@example.com" not in kiosk.page(),
                      "Back after submit shows nothing of the report")
            return scenario

        def validation_errors():
            kiosk.size(PORTRAIT)
            start(A)
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            check(kiosk.text("animalPhoto.title") == "Add a photo", "seed 002's title")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_visible("animalPhoto.toast")
            shown = time.time()
            check(kiosk.text("animalPhoto.toast") ==
                  "Photo required\nAttach a JPG, PNG, HEIC, GIF or WEBP file before continuing.",
                  "seed 002's toast: %r" % kiosk.text("animalPhoto.toast"))
            check(kiosk.text("animalPhoto.fileInput.error") == "Photo is mandatory", "Photo is mandatory")
            look("2-photo-mandatory")
            # Seed 002: the toast clears after 3 s; the error under the picker stays.
            WebDriverWait(kiosk.driver, 10).until(lambda d: not kiosk.visible("animalPhoto.toast"))
            check(time.time() - shown >= 2.5, "the toast stayed about 3 s (%.1f s)" % (time.time() - shown))
            check(kiosk.visible("animalPhoto.fileInput.error"), "the error stays")
            # The picker closed without a photo (Chromium's cancel event): seed 002's helper.
            kiosk.driver.execute_script(
                "document.getElementById('animalPhoto.fileInput.input').dispatchEvent(new Event('cancel'))")
            kiosk.wait_visible("animalPhoto.pickerCancelled.text")
            check(kiosk.text("animalPhoto.pickerCancelled.text") ==
                  "Select a photo to continue \u2013 you can browse again anytime.", "the picker-cancelled helper")
            upload(images["png"])
            kiosk.wait_visible("animalPhoto.confirmationCard")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")
            kiosk.el("animalDescription.datePicker.tap").clear()
            kiosk.type("animalDescription.longitudeTextField.input", "200")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_visible("reportFound.toast")
            errors = {e.get_attribute("id"): e.text for e in kiosk.driver.find_elements(By.CSS_SELECTOR, "p.error")
                      if e.is_displayed()}
            expected = {
                "animalDescription.datePicker.error": "Please select a date",
                "animalDescription.speciesDropdown.error": "Please select a species",
                "animalDescription.gender.error": "Please select a gender",
                "animalDescription.latitudeTextField.error": "Fill in latitude",
                "animalDescription.longitudeTextField.error": "Longitude must be between -180 and 180",
            }
            check(errors == expected, "all errors at once: %s" % errors)
            latitude = kiosk.el("animalDescription.latitudeTextField.input")
            check(latitude.get_attribute("aria-invalid") == "true", "aria-invalid on latitude")
            check("animalDescription.latitudeTextField.error" in latitude.get_attribute("aria-describedby"),
                  "aria-describedby ties the error")
            look("4-details-errors")
            kiosk.tap("reportFound.cancelButton.tap")
            kiosk.wait_visible("welcome.startButton.tap")
            check(A.drafts() == [], "cancel deletes the draft")

        def contact_errors():
            to_details(A)
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("cat")
            kiosk.tap("animalDescription.genderFemale.tap")
            kiosk.type("animalDescription.latitudeTextField.input", "52,2297")
            kiosk.type("animalDescription.longitudeTextField.input", "21.0122")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            kiosk.type("contactInformation.phoneTextField.input", "12345")
            kiosk.type("contactInformation.emailTextField.input", "anna@")
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_visible("reportFound.toast")
            check(kiosk.text("contactInformation.phoneTextField.error") == "Enter at least 7 digits", "phone error")
            check(kiosk.text("contactInformation.emailTextField.error") == "Enter a valid email address", "email error")
            look("5-contact-errors")
            kiosk.cancel_visit()

        def details_by_taps(station, photo="camera"):
            """Step 2 filled as the public does (taps only), then Continue to step 3."""
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("cat")
            kiosk.tap("animalDescription.genderFemale.tap")
            kiosk.tap_type("animalDescription.latitudeTextField.input", "52.2297")
            kiosk.tap_type("animalDescription.longitudeTextField.input", "21.0122")
            kiosk.close_keyboard()
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")

        def phone_too_long():
            # An international number past the seed's 11 digits is refused beside the field, never cut.
            kiosk.size(PORTRAIT)
            to_details(A)
            details_by_taps(A)
            before = len(A.reports())
            kiosk.tap_type("contactInformation.phoneTextField.input", "+380 67 123 4567")
            check(kiosk.value("contactInformation.phoneTextField.input") == "+380 67 123 4567",
                  "the 12th digit is kept while tapping: %r" % kiosk.value("contactInformation.phoneTextField.input"))
            kiosk.tap_type("contactInformation.emailTextField.input", "olena@example.com")
            kiosk.tap_type("contactInformation.caregiverPhoneTextField.input", "+48 600 123 456 78")
            kiosk.close_keyboard()
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_visible("reportFound.toast")
            check(kiosk.path() == "/report/contact", "still on the contact step")
            check(len(A.reports()) == before, "nothing queued")
            for field_id, typed in [("phoneTextField", "+380 67 123 4567"),
                                    ("caregiverPhoneTextField", "+48 600 123 456 78")]:
                value = kiosk.value("contactInformation.%s.input" % field_id)
                check(value == typed, "%s stays as typed: %r" % (field_id, value))
                error = kiosk.text("contactInformation.%s.error" % field_id)
                check(error == "Enter at most 11 digits", "%s: the message beside the field: %r" % (field_id, error))
                field = kiosk.el("contactInformation.%s.input" % field_id)
                check(field.get_attribute("aria-invalid") == "true"
                      and "contactInformation.%s.error" % field_id in field.get_attribute("aria-describedby"),
                      "%s: the error is tied to the field" % field_id)
            look("5-contact-phone-too-long")
            # The same in Polish: the language switch keeps the typed number, and Submit says it in Polish.
            kiosk.tap("languageSwitch.pl.tap")
            WebDriverWait(kiosk.driver, 60).until(lambda d: kiosk.language() == "pl")
            check(kiosk.value("contactInformation.phoneTextField.input") == "+380 67 123 4567",
                  "the switch keeps the long number")
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_visible("reportFound.toast")
            check(kiosk.text("contactInformation.phoneTextField.error") == "Wpisz najwyżej 11 cyfr",
                  "Polish message: %r" % kiosk.text("contactInformation.phoneTextField.error"))
            # Corrected by taps (the country code off, the caregiver's extra digits off): it goes.
            kiosk.tap("languageSwitch.en.tap")
            WebDriverWait(kiosk.driver, 60).until(lambda d: kiosk.language() == "en")
            kiosk.tap_type("contactInformation.caregiverPhoneTextField.input", "\b\b\b")
            kiosk.close_keyboard()
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_visible("reportFound.toast")
            check(not kiosk.visible("contactInformation.caregiverPhoneTextField.error"), "the caregiver's phone is fine now")
            check(kiosk.visible("contactInformation.phoneTextField.error"), "the phone still too long")
            kiosk.cancel_visit()
            check(len(A.reports()) == before, "nothing queued with a number too long")

        def full_disk():
            # A full disk at the photo and at submit says to ask staff, and keeps what was typed.
            if not E.small_disks:
                print("       full disk: skipped (cannot mount a small tmpfs here)", flush=True)
                return
            kiosk.size(PORTRAIT)
            start(E)
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            kiosk.tap("animalPhoto.camera")
            kiosk.wait_visible("animalPhoto.cameraView")
            WebDriverWait(kiosk.driver, 30).until(lambda d: kiosk.camera_live())
            kiosk.tap("animalPhoto.capture")
            kiosk.wait_visible("animalPhoto.fileInput.error")
            problem = kiosk.text("animalPhoto.fileInput.error")
            check(problem == "The station's storage is full, so the photo could not be kept. Please tell the staff.",
                  "the photo on a full disk: %r" % problem)
            check(not kiosk.visible("animalPhoto.confirmationCard"), "no card")
            look("2-photo-disk-full")
            E.resize(E.cache, "64m")  # the staff make room
            take_photo()
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")
            details_by_taps(E)
            kiosk.tap_type("contactInformation.phoneTextField.input", "600 123 456")
            kiosk.tap_type("contactInformation.emailTextField.input", "disk@example.com")
            kiosk.tap_type("contactInformation.addressTextArea.input", "Łąkowa 1")
            kiosk.close_keyboard()
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_visible("reportFound.toast")
            toast = kiosk.text("reportFound.toast")
            check(toast == "The station's storage is full, so the report could not be saved. Please tell the staff.",
                  "submit on a full disk: %r" % toast)
            check(kiosk.path() == "/report/contact" and E.reports() == [], "nothing queued, still on step 3")
            for field_id, typed in [("phoneTextField", "600 123 456"), ("emailTextField", "disk@example.com"),
                                    ("addressTextArea", "Łąkowa 1")]:
                value = kiosk.value("contactInformation.%s.input" % field_id)
                check(value == typed, "%s kept: %r" % (field_id, value))
            look("5-contact-disk-full")
            kiosk.tap("contactInformation.backButton.tap")
            kiosk.wait_path("/report/details")
            check(kiosk.value("animalDescription.latitudeTextField.input") == "52.2297", "step 2 kept too")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            E.resize(E.outbox, "64m")  # the staff make room: the same report goes
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_path("/report/thanks")
            check(len(E.reports()) == 1 and E.reports()[0]["contact"]["email"] == "disk@example.com",
                  "the report kept on the full disk is queued once there is room")
            kiosk.tap("thankYou.startOverButton.tap")
            kiosk.wait_visible("welcome.startButton.tap")

        def description_counter():
            # The counter warns from 50 characters before the 500-character cap (typed by taps).
            kiosk.size(PORTRAIT)
            to_details(A)
            area, hint = "animalDescription.descriptionTextArea.input", "animalDescription.descriptionTextArea.hint"
            kiosk.tap_key_times(area, "osk.key.a", 449)
            check(kiosk.text(hint) == "449/500", "449 typed: %r" % kiosk.text(hint))
            check("warn" not in kiosk.el(hint).get_attribute("class"), "no warning yet")
            kiosk.key("osk.key.a")
            check(kiosk.text(hint) == "450/500 \u2013 50 characters left", "450 typed: %r" % kiosk.text(hint))
            check("warn" in kiosk.el(hint).get_attribute("class"), "the counter warns")
            kiosk.tap_key_times(area, "osk.key.a", 60)
            check(len(kiosk.value(area)) == 500, "the cap holds: %d" % len(kiosk.value(area)))
            check(kiosk.text(hint) == "500/500 \u2013 0 characters left", "at the cap: %r" % kiosk.text(hint))
            look("4-details-counter-near-limit", screen_only=True)
            kiosk.close_keyboard()
            # The server's page says the same (a reload, the language switch, no JavaScript).
            kiosk.tap("languageSwitch.pl.tap")
            WebDriverWait(kiosk.driver, 60).until(lambda d: kiosk.language() == "pl")
            check(kiosk.text(hint) == "500/500 \u2013 pozostało znaków: 0", "in Polish: %r" % kiosk.text(hint))
            check("warn" in kiosk.el(hint).get_attribute("class"), "the server's counter warns too")
            kiosk.tap("languageSwitch.en.tap")
            WebDriverWait(kiosk.driver, 60).until(lambda d: kiosk.language() == "en")
            kiosk.cancel_visit()

        def gps_denied():
            for size in (PORTRAIT, LANDSCAPE):
                kiosk.size(size)
                to_details(B)
                kiosk.tap_type("animalDescription.latitudeTextField.input", "50.1")
                kiosk.close_keyboard()
                kiosk.tap("animalDescription.requestGPSButton.tap")
                kiosk.wait_visible("permissionAlert")
                # The focus is on what the visitor can do (close it and type), not on Go Settings.
                kiosk.wait_focused("permissionAlert.cancelButton.tap")
                check(kiosk.text("permissionAlert.title") == "Location access denied", "alert title")
                check(kiosk.text("permissionAlert.message") ==
                      "This station cannot share its location. Please type the coordinates, or ask a member of staff.",
                      "alert message: %r" % kiosk.text("permissionAlert.message"))
                check(kiosk.visible("permissionAlert.cancelButton.tap") and kiosk.visible("permissionAlert.goSettingsButton.tap"),
                      "Cancel and Go Settings")
                look("4-details-gps-denied")
                kiosk.tap("permissionAlert.cancelButton.tap")
                WebDriverWait(kiosk.driver, 5).until(lambda d: not kiosk.visible("permissionAlert"))
                check(kiosk.value("animalDescription.latitudeTextField.input") == "50.1", "fields left as they were")
                kiosk.tap("animalDescription.requestGPSButton.tap")
                kiosk.wait_visible("permissionAlert")
                kiosk.tap("permissionAlert.goSettingsButton.tap")
                kiosk.wait_visible("permissionAlert.settingsHelp")
                help_text = kiosk.text("permissionAlert.settingsHelp.text")
                check("ask a member of staff" in help_text, "settings help: %r" % help_text)
                user = __import__("pwd").getpwuid(uid).pw_name
                page = kiosk.page()
                for detail in administrator_details(user, uid):
                    check(detail not in page, "the visitor's page shows %r" % detail)
                look("4-details-gps-settings")
                kiosk.tap("permissionAlert.cancelButton.tap")
                kiosk.cancel_visit()
            # The administrator sees who was refused and what to do, on the station's status page.
            refused = B.admin_figure("locationLastRefusal") or ""
            check("location denied for user %s (uid %d)" % (user, uid) in refused, "admin: %r" % refused)
            remedy = B.admin_figure("locationRemedy") or ""
            check("petspot-location authorization reset --user %s" % user in remedy, "admin remedy: %r" % remedy)
            if uid == 0:
                # The command the alert shows works (the daemon's [policy.admin] is root).
                result = subprocess.run([os.path.join(bin_dir, "petspot-location"), "authorization", "reset",
                                         "--user", "root", "--socket", B.socket], capture_output=True, text=True)
                check(result.returncode == 0, "authorization reset: %s %s" % (result.stdout, result.stderr))

        def daemon_unreachable():
            kiosk.size(PORTRAIT)
            to_details(C, photo="png")
            kiosk.tap("animalDescription.requestGPSButton.tap")
            kiosk.wait_visible("animalDescription.gpsErrorText")
            check("location service is not running" in kiosk.text("animalDescription.gpsErrorText"), "unreachable message")
            check(kiosk.value("animalDescription.latitudeTextField.input") == "", "fields unchanged")
            look("4-details-gps-unreachable")
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("bird")
            kiosk.tap("animalDescription.genderFemale.tap")
            kiosk.type("animalDescription.latitudeTextField.input", "52.1")
            kiosk.type("animalDescription.longitudeTextField.input", "21.1")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            kiosk.cancel_visit()

        def back_keeps_data():
            kiosk.size(PORTRAIT)
            to_details(A)
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("rabbit")
            kiosk.type("animalDescription.raceTextField.input", "Lop")
            kiosk.tap("animalDescription.genderFemale.tap")
            kiosk.type("animalDescription.latitudeTextField.input", "52.2")
            kiosk.type("animalDescription.longitudeTextField.input", "21.0")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            kiosk.type("contactInformation.phoneTextField.input", "600123456")
            kiosk.tap("contactInformation.backButton.tap")
            kiosk.wait_path("/report/details")
            check(kiosk.value("animalDescription.raceTextField.input") == "Lop", "race kept")
            check(kiosk.el("animalDescription.genderFemale.tap").is_selected(), "gender kept")
            kiosk.tap("animalDescription.backButton.tap")
            kiosk.wait_path("/report/photo")
            check(kiosk.visible("animalPhoto.confirmationCard"), "photo kept")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")
            check(kiosk.value("animalDescription.latitudeTextField.input") == "52.2", "latitude kept")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            check(kiosk.value("contactInformation.phoneTextField.input") == "600123456", "phone kept")
            kiosk.cancel_visit()

        def photo_formats():
            kiosk.size(PORTRAIT)
            start(A)
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            # photo_sources = ["camera", "file"]: both ways are offered.
            check(kiosk.visible("animalPhoto.camera") and kiosk.visible("animalPhoto.browse"),
                  "camera and file chooser on a station configured for both")
            look("2-photo-camera-or-file")
            for kind, dimensions in [("jpg", "640 × 480"), ("png", "640 × 480"), ("webp", "640 × 480"),
                                     ("gif", "1 × 1"), ("heic", "640 × 480")]:
                if kiosk.visible("animalPhoto.remove"):
                    kiosk.tap("animalPhoto.remove")
                    WebDriverWait(kiosk.driver, 5).until(lambda d: not kiosk.visible("animalPhoto.confirmationCard"))
                upload(images[kind])
                kiosk.wait_visible("animalPhoto.confirmationCard")
                check(kiosk.text("animalPhoto.dimensions.label") == dimensions + " px", "%s: %s" % (kind, kiosk.text("animalPhoto.dimensions.label")))
                check(len(A.drafts()) == 1, "%s: one draft file" % kind)
            kiosk.tap("animalPhoto.remove")
            WebDriverWait(kiosk.driver, 5).until(lambda d: not kiosk.visible("animalPhoto.confirmationCard"))
            check(A.drafts() == [], "Remove deletes the draft")
            upload(images["txt"])
            kiosk.wait_visible("animalPhoto.fileInput.error")
            check(kiosk.text("animalPhoto.fileInput.error") == "Please choose a JPG, PNG, HEIC, GIF or WEBP photo",
                  "text file refused: %r" % kiosk.text("animalPhoto.fileInput.error"))
            check(not kiosk.visible("animalPhoto.confirmationCard") and A.drafts() == [], "nothing kept")
            look("2-photo-refused")
            kiosk.cancel_visit()

        def polish():
            for size in (PORTRAIT, LANDSCAPE):
                kiosk.size(size)
                start(A)
                kiosk.tap("languageSwitch.pl.tap")
                kiosk.wait_visible("welcome.startButton.tap")
                check(kiosk.text("welcome.startButton.tap") == "Zgłoś znalezione zwierzę", "Polish start button")
                look("1-welcome-pl")
                kiosk.tap("welcome.startButton.tap")
                kiosk.wait_path("/report/photo")
                upload(images["jpg"])
                kiosk.wait_visible("animalPhoto.confirmationCard")
                kiosk.tap("animalPhoto.continue")
                kiosk.wait_path("/report/details")
                kiosk.tap("animalDescription.continueButton.tap")
                kiosk.wait_visible("reportFound.toast")
                check(kiosk.text("animalDescription.latitudeTextField.error") == "Uzupełnij szerokość geograficzną",
                      "Polish error")
                check(kiosk.text("animalDescription.requestGPSButton.tap") == "Użyj lokalizacji tego stanowiska",
                      "Polish GPS button")
                look("4-details-pl")
                kiosk.tap("languageSwitch.en.tap")
                kiosk.wait_visible("animalDescription.requestGPSButton.tap")
                kiosk.cancel_visit()

        def keyboard_polish():
            # A whole report typed by taps on a Polish page: the Polish letters are on the keyboard without
            # a switch, Shift capitalises them, the decimal pad has - and ., backspace mends a slip.
            for size in (PORTRAIT, LANDSCAPE):
                kiosk.size(size)
                to_details(A)
                kiosk.tap("languageSwitch.pl.tap")
                WebDriverWait(kiosk.driver, 60).until(
                    lambda d: d.execute_script("return document.documentElement.lang") == "pl"
                    and kiosk.visible("animalDescription.raceTextField.input"))
                Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("dog")
                kiosk.tap("animalDescription.raceTextField.input")
                kiosk.check_keyboard("animalDescription.raceTextField.input")
                check(kiosk.visible("osk.key.ł") and kiosk.el("osk.polish").get_attribute("aria-pressed") == "true",
                      "Polish letters shown on a Polish page")
                check(kiosk.el("osk").get_attribute("aria-label") == "Klawiatura ekranowa"
                      and kiosk.el("osk.backspace").get_attribute("aria-label") == "Usuń"
                      and kiosk.el("osk.shift").get_attribute("aria-label") == "Wielka litera"
                      and kiosk.el("osk.space").get_attribute("aria-label") == "Spacja"
                      and kiosk.text("osk.done") == "Gotowe", "the keyboard's names in Polish")
                kiosk.tap_type("animalDescription.raceTextField.input", "Łajkx\ba")
                check(kiosk.value("animalDescription.raceTextField.input") == "Łajka",
                      "race: %r" % kiosk.value("animalDescription.raceTextField.input"))
                kiosk.tap_type("animalDescription.petNameTextField.input", "Żółw")
                look("4-details-keyboard-pl", screen_only=True)
                kiosk.tap("animalDescription.genderFemale.tap")
                kiosk.tap_type("animalDescription.latitudeTextField.input", "52.25")
                check(kiosk.el("osk").get_attribute("data-layout") == "decimal"
                      and kiosk.has_key("osk.key.-") and kiosk.has_key("osk.key.."), "latitude: the decimal pad")
                look("4-details-keyboard-decimal", screen_only=True)
                kiosk.tap_type("animalDescription.longitudeTextField.input", "-1.5")
                description = "Znaleziony przy łące, ma obrożę."
                kiosk.tap_type("animalDescription.descriptionTextArea.input", description)
                check(kiosk.text("animalDescription.descriptionTextArea.hint") == "%d/500" % len(description),
                      "description counter: %r" % kiosk.text("animalDescription.descriptionTextArea.hint"))
                kiosk.tap("animalDescription.continueButton.tap")
                kiosk.wait_path("/report/contact")
                look("5-contact-pl")
                kiosk.tap_type("contactInformation.phoneTextField.input", "600123456")
                look("5-contact-keyboard-digits-pl", screen_only=True)
                kiosk.tap_type("contactInformation.emailTextField.input", "ala@example.pl")
                look("5-contact-keyboard-email-pl", screen_only=True)
                kiosk.close_keyboard()
                before = len(A.reports())
                kiosk.tap("contactInformation.submitButton.tap")
                kiosk.wait_path("/report/thanks")
                check(kiosk.text("thankYou.reference.label").startswith("PS-"), "thank-you page")
                look("6-thank-you-pl")
                reports = A.reports()
                check(len(reports) == before + 1, "one report queued")
                report = reports[-1]
                expected = {"race": "Łajka", "petName": "Żółw", "latitude": 52.25, "longitude": -1.5,
                            "description": description}
                for name, value in expected.items():
                    check(report.get(name) == value, "the report's %s: %r" % (name, report.get(name)))
                contact = report.get("contact", {})
                check(contact.get("email") == "ala@example.pl" and contact.get("phone", "").endswith("600123456"),
                      "the report's contact: %r" % contact)
                kiosk.tap("thankYou.startOverButton.tap")
                kiosk.wait_visible("welcome.startButton.tap")

        def language_switch_keeps_values():
            # Issue 25 item 4: the language buttons submit the step's form, so what was typed (by taps on the
            # on-screen keyboard, no send_keys) stays on every step, the photo too, and reaches the report.
            kiosk.size(PORTRAIT)
            to_details(A)
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("cat")
            kiosk.tap_type("animalDescription.raceTextField.input", "Maine Coon")
            kiosk.tap("animalDescription.genderFemale.tap")
            kiosk.tap_type("animalDescription.ageTextField.input", "4")
            kiosk.tap_type("animalDescription.chipNumberTextField.input", "1234567")
            kiosk.tap_type("animalDescription.petNameTextField.input", "Mruczek")
            kiosk.tap_type("animalDescription.latitudeTextField.input", "52.2")
            kiosk.tap_type("animalDescription.longitudeTextField.input", "21.05")
            kiosk.tap_type("animalDescription.descriptionTextArea.input", "Grey, white paws")
            details = {"raceTextField": "Maine Coon", "ageTextField": "4", "chipNumberTextField": "12345-67",
                       "petNameTextField": "Mruczek", "latitudeTextField": "52.2", "longitudeTextField": "21.05",
                       "descriptionTextArea": "Grey, white paws"}

            def details_kept(language):
                for name, typed in details.items():
                    value = kiosk.value("animalDescription.%s.input" % name)
                    check(value == typed, "%s after switching to %s: %r" % (name, language, value))
                check(Select(kiosk.el("animalDescription.speciesDropdown.tap")).first_selected_option
                      .get_attribute("value") == "cat", "species kept (%s)" % language)
                check(kiosk.el("animalDescription.genderFemale.tap").is_selected(), "gender kept (%s)" % language)
                check(kiosk.text("animalDescription.descriptionTextArea.hint") == "16/500", "counter (%s)" % language)

            kiosk.tap("languageSwitch.pl.tap")  # mid-step, the keyboard still open
            kiosk.wait_path("/report/details")
            WebDriverWait(kiosk.driver, 60).until(
                lambda d: d.execute_script("return document.documentElement.lang") == "pl"
                and kiosk.visible("animalDescription.raceTextField.input"))
            check(kiosk.text("animalDescription.title") == "Informacje o zwierzęciu", "the same step, in Polish")
            check(not kiosk.visible("reportFound.toast"), "switching checks nothing")
            details_kept("Polish")
            kiosk.tap_type("animalDescription.petNameTextField.input", "\b\b\b\bś")  # typed over in Polish
            details["petNameTextField"] = "Mruś"
            kiosk.tap("languageSwitch.en.tap")
            WebDriverWait(kiosk.driver, 60).until(
                lambda d: d.execute_script("return document.documentElement.lang") == "en"
                and kiosk.visible("animalDescription.raceTextField.input"))
            details_kept("English")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            kiosk.tap_type("contactInformation.phoneTextField.input", "600 123 456 789")  # 12 digits
            check(kiosk.value("contactInformation.phoneTextField.input") == "600 123 456 789",
                  "the phone never cut while tapping: %r" % kiosk.value("contactInformation.phoneTextField.input"))
            kiosk.tap_type("contactInformation.emailTextField.input", "kot@example.pl")
            kiosk.tap_type("contactInformation.addressTextArea.input", "Łąkowa 2")
            contact = {"phoneTextField": "600 123 456 789", "emailTextField": "kot@example.pl",
                       "addressTextArea": "Łąkowa 2"}
            kiosk.tap("languageSwitch.pl.tap")
            WebDriverWait(kiosk.driver, 60).until(
                lambda d: d.execute_script("return document.documentElement.lang") == "pl"
                and kiosk.visible("contactInformation.phoneTextField.input"))
            check(kiosk.path() == "/report/contact" and kiosk.text("contactInformation.title") == "Dane kontaktowe",
                  "the contact step, in Polish")
            for name, typed in contact.items():
                value = kiosk.value("contactInformation.%s.input" % name)
                check(value == typed, "%s after switching: %r" % (name, value))
            # The photo stays too: back to step 1 in Polish, then forward again.
            kiosk.tap("contactInformation.backButton.tap")
            kiosk.wait_path("/report/details")
            kiosk.tap("animalDescription.backButton.tap")
            kiosk.wait_path("/report/photo")
            check(kiosk.visible("animalPhoto.confirmationCard"), "the photo kept across the switches")
            kiosk.tap("languageSwitch.en.tap")
            kiosk.wait_visible("animalPhoto.confirmationCard")
            check(kiosk.text("animalPhoto.title") == "Add a photo", "the photo step in English")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")
            details_kept("English, after Back")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            check(kiosk.value("contactInformation.phoneTextField.input") == "600 123 456 789",
                  "the 12 digits kept through Back and both switches")
            kiosk.tap_type("contactInformation.phoneTextField.input", "\b")  # to the rule's 11 digits
            kiosk.close_keyboard()
            before = len(A.reports())
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_path("/report/thanks")
            reports = A.reports()
            check(len(reports) == before + 1, "one report queued")
            report = reports[-1]
            expected = {"species": "cat", "race": "Maine Coon", "gender": "female", "age": 4, "chipNumber": "1234567",
                        "petName": "Mruś", "latitude": 52.2, "longitude": 21.05, "description": "Grey, white paws"}
            for name, value in expected.items():
                check(report.get(name) == value, "the report's %s: %r" % (name, report.get(name)))
            check(report.get("contact", {}).get("phone") == "600 123 456 78"
                  and report.get("contact", {}).get("email") == "kot@example.pl",
                  "the report's contact: %r" % report.get("contact"))
            kiosk.tap("thankYou.startOverButton.tap")
            kiosk.wait_visible("welcome.startButton.tap")

        def camera_problems():
            # The default photo_sources (["camera"]): no file chooser on a public screen. A camera the
            # browser refuses, and a machine with no camera, each give a plain message and no live view.
            kiosk.size(PORTRAIT)
            start(B)
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            check(kiosk.visible("animalPhoto.camera"), "the camera button")
            check(not kiosk.visible("animalPhoto.browse"), "no file chooser where photo_sources is [\"camera\"]")
            kiosk.cancel_visit()
            for camera, message, shot in [
                    ("blocked", "This station may not use its camera right now. Please ask staff for help.",
                     "2-photo-camera-refused"),
                    ("none", "The camera is not working right now. Please ask staff for help.", None)]:
                other = Kiosk(camera=camera)
                try:
                    other.open(B.url + "/")
                    other.tap("welcome.startButton.tap")
                    other.wait_path("/report/photo")
                    other.tap("animalPhoto.camera")
                    other.wait_visible("animalPhoto.fileInput.error")
                    check(other.text("animalPhoto.fileInput.error") == message,
                          "camera %s: %r" % (camera, other.text("animalPhoto.fileInput.error")))
                    check(not other.visible("animalPhoto.cameraView") and not other.camera_on(), "no live view")
                    check(other.visible("animalPhoto.camera"), "the camera button stays, to try again")
                    if shot:
                        violations = other.axe()
                        run.axe.append((shot, "1080x1920", other.language(), len(violations)))
                        check(not violations, "%s: axe-core: %s" % (shot, violations))
                        other.screenshot(shots, shot)
                    other.cancel_visit()
                finally:
                    other.quit()

        def camera_policy():
            # The station's Chromium policy (config/chromium-kiosk-policy.json, installed by the browser
            # unit): the camera for the kiosk's origin only, with no prompt. Chromium reads policies only
            # from /etc/chromium/policies/managed, so this installs a copy naming station B's origin
            # there for the length of the check (as root; CI runs as root) and removes it after.
            with open(os.path.join(REPO, "config", "chromium-kiosk-policy.json")) as f:
                policy = json.load(f)
            check(policy.get("VideoCaptureAllowed") is False
                  and policy.get("VideoCaptureAllowedUrls") == ["http://127.0.0.1:8080"]
                  and policy.get("AudioCaptureAllowed") is False,
                  "the shipped policy grants the camera to the kiosk's default origin only: %r" % policy)
            folder = "/etc/chromium/policies/managed"
            if os.geteuid() != 0:
                print("       (skipped the policy check in Chromium: it needs root to write %s)" % folder)
                return
            os.makedirs(folder, exist_ok=True)
            handle, path = tempfile.mkstemp(prefix="petspot-browser-test-", suffix=".json", dir=folder)
            other = None
            try:
                policy["VideoCaptureAllowedUrls"] = [B.url]
                with os.fdopen(handle, "w") as f:
                    json.dump(policy, f)
                os.chmod(path, 0o644)
                other = Kiosk(camera="policy")
                for station, allowed in [(B, True), (A, False)]:
                    other.open(station.url + "/")
                    other.tap("welcome.startButton.tap")
                    other.wait_path("/report/photo")
                    other.tap("animalPhoto.camera")
                    if allowed:
                        other.wait_visible("animalPhoto.cameraView")
                        WebDriverWait(other.driver, 30).until(lambda d: other.camera_live())
                    else:
                        other.wait_visible("animalPhoto.fileInput.error")
                        check(other.text("animalPhoto.fileInput.error") ==
                              "This station may not use its camera right now. Please ask staff for help.",
                              "another origin: %r" % other.text("animalPhoto.fileInput.error"))
                    other.cancel_visit()
            finally:
                if other:
                    other.quit()
                os.unlink(path)

        def report_after_idle_welcome():
            # The third whole report by taps alone: the welcome screen first idles past idle_reset; the
            # visitor picks Polish, takes the photo with the camera, types on the on-screen keyboard,
            # switches to English mid-step with the keyboard open, fills the position by GPS, submits.
            kiosk.size(PORTRAIT)
            start(D)
            shown = time.time()
            wait_for(lambda: time.time() - shown > 12 + 1.5 and D.admin_figure("visits") == "0", timeout=60,
                     what="the idle reset to pass with no visit held")
            kiosk.tap("languageSwitch.pl.tap")
            WebDriverWait(kiosk.driver, 60).until(
                lambda d: kiosk.language() == "pl" and kiosk.visible("welcome.startButton.tap"))
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            check(kiosk.text("animalPhoto.title") == "Dodaj zdjęcie", "the photo step in Polish")
            look("2-photo-empty-pl")
            take_photo(screenshot="2-photo-camera-pl")
            look("3-photo-confirmed-pl")
            kiosk.tap("animalPhoto.continue")
            kiosk.wait_path("/report/details")
            Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("dog")
            kiosk.tap_type("animalDescription.raceTextField.input", "Kundel")
            kiosk.tap("animalDescription.genderMale.tap")
            kiosk.tap_type("animalDescription.petNameTextField.input", "Burek")
            kiosk.tap_type("animalDescription.descriptionTextArea.input", "Żółta obroża")
            kiosk.tap("languageSwitch.en.tap")  # mid-step, the keyboard open
            WebDriverWait(kiosk.driver, 60).until(
                lambda d: kiosk.language() == "en" and kiosk.visible("animalDescription.raceTextField.input"))
            for field_id, typed in [("raceTextField", "Kundel"), ("petNameTextField", "Burek"),
                                    ("descriptionTextArea", "Żółta obroża")]:
                value = kiosk.value("animalDescription.%s.input" % field_id)
                check(value == typed, "%s after the switch: %r" % (field_id, value))
            kiosk.tap("animalDescription.requestGPSButton.tap")
            WebDriverWait(kiosk.driver, 30).until(
                lambda d: kiosk.value("animalDescription.latitudeTextField.input") != "")
            latitude = kiosk.value("animalDescription.latitudeTextField.input")
            longitude = kiosk.value("animalDescription.longitudeTextField.input")
            kiosk.tap("animalDescription.continueButton.tap")
            kiosk.wait_path("/report/contact")
            kiosk.tap_type("contactInformation.phoneTextField.input", "600100200")
            kiosk.tap_type("contactInformation.emailTextField.input", "burek@example.pl")
            kiosk.close_keyboard()
            before = len(D.reports())
            kiosk.tap("contactInformation.submitButton.tap")
            kiosk.wait_path("/report/thanks")
            reports = D.reports()
            check(len(reports) == before + 1, "one report queued")
            report = reports[-1]
            expected = {"species": "dog", "race": "Kundel", "gender": "male", "petName": "Burek",
                        "description": "Żółta obroża"}
            for name, value in expected.items():
                check(report.get(name) == value, "the report's %s: %r" % (name, report.get(name)))
            check("%.6f" % report["latitude"] == latitude and "%.6f" % report["longitude"] == longitude,
                  "the report's position is the daemon's: %s,%s" % (report["latitude"], report["longitude"]))
            check(report.get("contact", {}).get("email") == "burek@example.pl", "contact: %r" % report.get("contact"))
            check(D.drafts() == [], "the photo draft is deleted after submit")
            kiosk.tap("thankYou.startOverButton.tap")
            kiosk.wait_visible("welcome.startButton.tap")
            check(kiosk.language() == "en", "the next visit starts in the station's language")

        def larger_text():
            # The display toggle: larger text and higher contrast, in place (what was typed stays), on
            # every later page of the visit, and gone with the visit.
            for size in (PORTRAIT, LANDSCAPE):
                kiosk.size(size)
                to_details(A)
                kiosk.tap_type("animalDescription.raceTextField.input", "Husky")
                kiosk.close_keyboard()
                kiosk.tap("display.largeText.tap")
                WebDriverWait(kiosk.driver, 10).until(lambda d: d.execute_script(
                    "return document.documentElement.classList.contains('large')"))
                check(kiosk.el("display.largeText.tap").get_attribute("aria-pressed") == "true", "the toggle is pressed")
                check(kiosk.value("animalDescription.raceTextField.input") == "Husky", "what was typed stays")
                size_px = kiosk.driver.execute_script(
                    "return parseFloat(getComputedStyle(document.documentElement).fontSize)")
                check(size_px >= 25, "larger text: %s px" % size_px)
                look("4-details-large")
                kiosk.tap_type("animalDescription.petNameTextField.input", "Bo")
                look("4-details-keyboard-large", screen_only=True)
                kiosk.close_keyboard()
                Select(kiosk.el("animalDescription.speciesDropdown.tap")).select_by_value("dog")
                kiosk.tap("animalDescription.genderMale.tap")
                kiosk.tap_type("animalDescription.latitudeTextField.input", "52.1")
                kiosk.tap_type("animalDescription.longitudeTextField.input", "21.1")
                kiosk.close_keyboard()
                kiosk.tap("animalDescription.continueButton.tap")
                kiosk.wait_path("/report/contact")
                check(kiosk.driver.execute_script("return document.documentElement.classList.contains('large')"),
                      "the next page of the visit is large too")
                look("5-contact-large")
                kiosk.cancel_visit()
                check(not kiosk.driver.execute_script("return document.documentElement.classList.contains('large')"),
                      "the next visitor starts with the standard display")

        def idle_reset():
            kiosk.size(PORTRAIT)
            to_details(C)
            # The visitor types and walks away, the field still focused (its text changed): the prompt takes
            # the focus, and that blur must not count as activity (a "change" event once dismissed the
            # prompt it caused and extended the visit; under load the test saw it hidden again).
            kiosk.tap_type("animalDescription.raceTextField.input", "Dachshund")
            check(len(C.drafts()) == 1, "a draft while the visit lasts")
            # Nothing more is done: the prompt appears 6 s before the 12 s reset.
            kiosk.wait_visible("idlePrompt", timeout=20)
            check(kiosk.text("idlePrompt.title") == "Still there?", "Still there? prompt")
            look("7-still-there")
            # From the prompt to the reset, nothing dismisses it: it is on the screen at every look until the
            # page goes to the welcome screen.
            while kiosk.path() == "/report/details":
                try:
                    shown = kiosk.driver.execute_script(
                        "const d = document.getElementById('idlePrompt'); return location.pathname !== '/report/details' || !d || !d.hidden")
                except WebDriverException:
                    break  # the page is being replaced: the reset's navigation
                check(shown, "the prompt hid itself with nobody there")
            kiosk.wait_visible("welcome.startButton.tap", timeout=20)
            check(C.drafts() == [], "the draft is deleted at the idle reset")
            check("Dachshund" not in kiosk.page(), "nothing of the visit on the screen")
            kiosk.driver.back()
            time.sleep(1)
            check("Dachshund" not in kiosk.page(), "Back shows nothing of the old visit")
            # "I'm still here" keeps a visit.
            to_details(C)
            kiosk.wait_visible("idlePrompt", timeout=20)
            kiosk.tap("idlePrompt.stillHereButton.tap")
            WebDriverWait(kiosk.driver, 5).until(lambda d: not kiosk.visible("idlePrompt"))
            time.sleep(7)
            check(kiosk.path() == "/report/details" and len(C.drafts()) == 1, "still here keeps the visit")
            if kiosk.visible("idlePrompt"):
                kiosk.tap("idlePrompt.stillHereButton.tap")
                WebDriverWait(kiosk.driver, 5).until(lambda d: not kiosk.visible("idlePrompt"))
            kiosk.cancel_visit()

        def next_visitor_gets_nothing_back():
            # Issue 29 item 1. Visitor A types and walks away; the idle reset. Visitor B starts a report,
            # presses the browser's Back three times, then Continue. Chromium's form restoration once put
            # A's breed, pet name and description into B's details form, and Continue stored them in B's
            # report: nothing of A may appear on any page B sees, nor in what B's visit holds.
            kiosk.size(PORTRAIT)
            to_details(C)
            secrets = {
                "animalDescription.raceTextField.input": "Bernardyn",
                "animalDescription.petNameTextField.input": "Burek",
                "animalDescription.descriptionTextArea.input": "Czerwona obroza",
            }
            for field, text in secrets.items():
                kiosk.tap_type(field, text)
            # Continue with the species missing: the step comes back with its errors as a new page, and the
            # history entry A typed into stays behind it, holding A's form state for Chromium to restore.
            kiosk.tap("animalDescription.continueButton.tap")
            wait_for(lambda: kiosk.visible("animalDescription.speciesDropdown.error"), what="the step's errors")
            kiosk.wait_visible("welcome.startButton.tap", timeout=60)  # the idle reset (12 s on C)

            def nothing_of_a(where):
                values = kiosk.driver.execute_script(
                    "return Array.from(document.querySelectorAll('input, textarea, select'))"
                    ".map(e => e.value).join('\\n')")
                for text in secrets.values():
                    check(text not in values and text not in kiosk.page(), "%s shows A's %r" % (where, text))

            to_details(C)
            nothing_of_a("B's details step")
            for press in range(3):
                kiosk.driver.back()
                wait_for(lambda: kiosk.driver.execute_script("return document.readyState") == "complete",
                         what="the page after Back")
                nothing_of_a("after Back %d (%s)" % (press + 1, kiosk.path()))
            # Continue, on whichever step Back left B.
            if kiosk.path() == "/report/photo":
                kiosk.tap("animalPhoto.continue")
                kiosk.wait_path("/report/details")
            if kiosk.path() == "/report/details":
                nothing_of_a("B's details step before Continue")
                kiosk.tap("animalDescription.continueButton.tap")
                wait_for(lambda: kiosk.path() in ("/report/details", "/report/contact"), what="Continue")
            # What B's visit holds, as the server renders it (the contact step's Back shows the details).
            if kiosk.path() == "/report/contact":
                kiosk.tap("contactInformation.backButton.tap")
                kiosk.wait_path("/report/details")
            nothing_of_a("B's stored details")
            kiosk.cancel_visit()

        def welcome_sits_past_idle_reset():
            # Idling on the welcome screen is the station's normal state: a visit starts at the tap, so the
            # tap works however long the screen was shown.
            kiosk.size(PORTRAIT)
            start(C)
            shown = time.time()
            # Wait until the idle reset has passed and the kiosk holds no visit (the sweeper has run: with a
            # visit opened by the page load, as before, this is the moment it is wiped).
            wait_for(lambda: time.time() - shown > 12 + 1.5 and C.admin_figure("visits") == "0", timeout=60,
                     what="the idle reset to pass with no visit held")
            check(kiosk.visible("welcome.startButton.tap"), "still the welcome screen")
            kiosk.tap("welcome.startButton.tap")
            kiosk.wait_path("/report/photo")
            check("This page has expired" not in kiosk.page(), "the tap went through")
            kiosk.el("animalPhoto.fileInput.input")  # the photo step
            check(C.admin_figure("visits") == "1", "the tap opened the visit")
            kiosk.cancel_visit()

        def without_javascript():
            nojs = Kiosk(javascript=False)
            try:
                nojs.size(PORTRAIT)
                nojs.open(A.url + "/")
                nojs.tap("welcome.startButton.tap")
                nojs.wait_path("/report/photo")
                nojs.el("animalPhoto.fileInput.input").send_keys(images["png"])
                nojs.tap("animalPhoto.uploadButton.tap")
                nojs.wait_visible("animalPhoto.confirmationCard")
                nojs.tap("animalPhoto.continue")
                nojs.wait_path("/report/details")
                Select(nojs.el("animalDescription.speciesDropdown.tap")).select_by_value("other")
                nojs.tap("animalDescription.genderMale.tap")
                nojs.tap("animalDescription.requestGPSButton.tap")
                WebDriverWait(nojs.driver, 10).until(
                    lambda d: nojs.value("animalDescription.latitudeTextField.input") != "")
                check(nojs.text("animalDescription.gpsHelperText").startswith("GPS capture successful"), "helper without JS")
                check(Select(nojs.el("animalDescription.speciesDropdown.tap")).first_selected_option.get_attribute("value") == "other",
                      "the GPS post kept the other fields")
                nojs.tap("animalDescription.continueButton.tap")
                nojs.wait_path("/report/contact")
                nojs.type("contactInformation.phoneTextField.input", "600123456")
                nojs.type("contactInformation.emailTextField.input", "nojs@example.com")
                # The language buttons submit the step's form without JavaScript too: the values stay.
                nojs.tap("languageSwitch.pl.tap")
                WebDriverWait(nojs.driver, 60).until(
                    lambda d: d.execute_script("return document.documentElement.lang") == "pl")
                check(nojs.value("contactInformation.phoneTextField.input") == "600123456"
                      and nojs.value("contactInformation.emailTextField.input") == "nojs@example.com",
                      "the language switch without JavaScript keeps the values")
                before = len(A.reports())
                nojs.tap("contactInformation.submitButton.tap")
                nojs.wait_path("/report/thanks")
                check(len(A.reports()) == before + 1, "submitted without JavaScript")
                check("<noscript>" not in nojs.page() or True, "")
                # Denied without JavaScript: the alert is a server-rendered page state.
                nojs.open(B.url + "/")
                nojs.tap("welcome.startButton.tap")
                nojs.wait_path("/report/photo")
                nojs.el("animalPhoto.fileInput.input").send_keys(images["png"])
                nojs.tap("animalPhoto.uploadButton.tap")
                nojs.wait_visible("animalPhoto.confirmationCard")
                nojs.tap("animalPhoto.continue")
                nojs.wait_path("/report/details")
                nojs.tap("animalDescription.requestGPSButton.tap")
                nojs.wait_visible("permissionAlert")
                nojs.wait_focused("permissionAlert.cancelButton.tap")  # the page's own autofocus
                nojs.tap("permissionAlert.goSettingsButton.tap")
                nojs.wait_visible("permissionAlert.settingsHelp")
                check("ask a member of staff" in nojs.text("permissionAlert.settingsHelp.text"), "help without JS")
                check("sudo" not in nojs.page(), "no command without JS either")
                nojs.tap("permissionAlert.cancelButton.tap")
                WebDriverWait(nojs.driver, 5).until(lambda d: not nojs.visible("permissionAlert"))
                nojs.cancel_visit()
            finally:
                nojs.quit()

        def benchmark():
            # GPS fill round trip (button -> both fields filled), in the browser, on station A.
            kiosk.size(PORTRAIT)
            # The page's script times it: click → both fields filled (performance.now()). A visit may ask the
            # daemon 3 times in 10 s (GPSTapBudget): 3 taps per visit (30 by default: 10 visits; --gps-taps).
            run.gps_fill_ms = []
            for tap in range(run.args.gps_taps):
                if tap % 3 == 0:
                    if tap:
                        kiosk.cancel_visit()
                    to_details(A)
                kiosk.driver.execute_script(
                    "document.getElementById('animalDescription.latitudeTextField.input').value = '';"
                    "document.getElementById('animalDescription.requestGPSButton.tap').removeAttribute('data-fill-ms')")
                kiosk.tap("animalDescription.requestGPSButton.tap")
                WebDriverWait(kiosk.driver, 10, poll_frequency=0.02).until(
                    lambda d: kiosk.el("animalDescription.requestGPSButton.tap").get_attribute("data-fill-ms"))
                run.gps_fill_ms.append(float(kiosk.el("animalDescription.requestGPSButton.tap").get_attribute("data-fill-ms")))
            kiosk.cancel_visit()
            # Page render: GET of step 2 over HTTP (the server's whole answer), 300 times.
            jar = http.cookiejar.CookieJar()
            opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
            page = opener.open(A.url + "/").read().decode()
            token = page.split('data-csrf="', 1)[1].split('"', 1)[0]
            opener.open(A.url + "/start", data=("_csrf=" + token).encode())
            for _ in range(300):
                started = time.perf_counter()
                opener.open(A.url + "/report/photo").read()
                run.render_ms.append((time.perf_counter() - started) * 1000)

        run.scenario("complete report with GPS fill, portrait 1080x1920", complete_report(PORTRAIT))
        run.scenario("complete report with GPS fill, landscape 1920x1080", complete_report(LANDSCAPE))
        run.scenario("validation errors: toast and inline errors at once", validation_errors)
        run.scenario("contact step errors (seed texts)", contact_errors)
        run.scenario("GPS denied: alert, Cancel, Go Settings (both sizes)", gps_denied)
        run.scenario("a phone number past 11 digits: refused beside the field, never cut", phone_too_long)
        run.scenario("a full disk at the photo and at submit: ask staff, keep it all", full_disk)
        run.scenario("the description counter warns near its 500 characters", description_counter)
        run.scenario("daemon unreachable: message, coordinates by hand", daemon_unreachable)
        run.scenario("Back keeps what was entered", back_keeps_data)
        run.scenario("each photo format accepted, a text file refused", photo_formats)
        run.scenario("Polish texts (both sizes)", polish)
        run.scenario("on-screen keyboard: a Polish report by taps (both sizes)", keyboard_polish)
        run.scenario("language switch mid-step keeps every value (by taps)", language_switch_keeps_values)
        run.scenario("the camera refused, and no camera: plain messages", camera_problems)
        run.scenario("report 3 by taps: idle welcome, Polish, camera, switch mid-step, GPS", report_after_idle_welcome)
        run.scenario("larger text and higher contrast for the visit (both sizes)", larger_text)
        run.scenario("idle reset: Still there?, then nothing left", idle_reset)
        run.scenario("welcome screen left past idle_reset: the tap starts a visit", welcome_sits_past_idle_reset)
        run.scenario("the next visitor's Back and Continue bring back nothing of the last", next_visitor_gets_nothing_back)
        run.scenario("without JavaScript: full flow, GPS fill, denied alert", without_javascript)
        run.scenario("the station's Chromium policy: the camera for the kiosk's origin only", camera_policy)
        run.scenario("benchmark: GPS fill round trip, page render", benchmark)
    finally:
        if kiosk:
            kiosk.quit()
        for station in stations.values():
            station.stop()
        if run.failed:
            for station in stations.values():
                for name in os.listdir(station.dir):
                    if name.endswith(".log"):
                        print("---- %s %s" % (station.name, name))
                        print(open(os.path.join(station.dir, name)).read()[-3000:])
        shutil.rmtree(root, ignore_errors=True)

    def percentile(values, p):
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")
    if run.gps_fill_ms and run.render_ms:
        print("bench: page render (GET step 1 over loopback) p50 %.1f ms p99 %.1f ms (n=%d); "
              "GPS fill round trip (tap -> both fields filled, in Chromium) p50 %.0f ms p99 %.0f ms (n=%d)"
              % (percentile(run.render_ms, 50), percentile(run.render_ms, 99), len(run.render_ms),
                 percentile(run.gps_fill_ms, 50), percentile(run.gps_fill_ms, 99), len(run.gps_fill_ms)))
    if run.axe:
        print("axe-core (WCAG 2.0/2.1/2.2 A+AA) per screen looked at:")
        for name, size, language, count in run.axe:
            print("  %-34s %-9s %-2s %d violation(s)" % (name, size, language, count))
    if run.smallest_control:
        print("smallest control on any screen looked at: %s %.0fx%.0f px (%s, %s)" % run.smallest_control)
    if kiosk and kiosk.smallest_key:
        print("on-screen keyboard: smallest key %s %.0fx%.0f px (window %s, layout %s)" % kiosk.smallest_key)
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
