/// gpsfake with gates: `gpsfake -1 -p -t -s SPEED -P PORT LOG`, built from
/// the same `gps.fake.TestSession`, except that it waits for the test twice.
///
/// - Before the feed, for `go` on standard input (the test sends it once its
///   source is connected), then for gpsd to answer a `?POLL;` from gpsfake's
///   own watcher. The source's `?WATCH` was written before the source saw
///   gpsd's greeting, so when gpsd answers a command sent after that, it
///   has read the WATCH too: from the first sentence on, gpsd reports to
///   both. (gpsfake itself sleeps 1.4 s here and hopes.)
/// - After the feed, for `end` before gpsd is stopped, so gpsd is up for as
///   long as the test asks it things.
///
/// - When it adds the log's device to gpsd, for gpsd's `OK` on the control
///   socket. (gpsfake connects once, as soon as the socket's file exists,
///   and gives up silently when gpsd is not listening yet: gpsd then never
///   gets the device, and gpsfake ends 60 s later with "Test timed out".)
///
/// Standard output is gpsfake's `-p` output: every line gpsd sent its
/// watcher (the `?POLL;` answer left out). Arguments: port, speed, log file.
enum GatedGpsfake {
    static let script = """
        import signal, socket, sys, time
        import gps
        import gps.fake as gpsfake

        port, speed, logfile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        output = gps.get_bytes_stream(sys.stdout)
        session = gpsfake.TestSession(port=port, tcp=True, timeout=60, options="")
        session.reporter = output.write
        stop_gpsd = session.cleanup

        def expect(word):
            line = sys.stdin.readline()
            if line.strip() != word:
                sys.stderr.write("gated gpsfake: expected %r on stdin, got %r\\n" % (word, line))
                raise SystemExit(2)

        def one_pass(index, fake):  # gpsfake -1
            return index == 0 or index % len(fake.testload.sentences) != 0

        def stopped(number, frame):
            stop_gpsd()
            raise SystemExit(1)

        def add_device(path):
            while session.daemon.is_alive():
                try:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
                        control.connect(session.daemon.control_socket)
                        control.sendall(gps.polybytes("+%s\\r\\n\\x00" % path))
                        if control.recv(12).startswith(b"OK"):
                            return
                except OSError:
                    pass
                time.sleep(0.01)  # gpsd is not listening yet: it has no signal for that
            sys.stderr.write("gated gpsfake: gpsd died before it took the device\\n")
            raise SystemExit(1)

        session.daemon.add_device = add_device
        session.spawn()
        for number in (signal.SIGQUIT, signal.SIGINT, signal.SIGTERM):
            signal.signal(number, stopped)
        try:
            session.gps_add(logfile, speed=speed, pred=one_pass, oneshot=True)
            session.client_add('?WATCH={"json":true,"nmea":true}\\n')
            watcher = [item for item in session.runqueue if isinstance(item, gps.gps)][0]
            expect("go")
            watcher.send("?POLL;\\n")
            while True:
                if watcher.read() < 0:
                    sys.stderr.write("gated gpsfake: gpsd closed the watcher\\n")
                    raise SystemExit(1)
                if not watcher.valid & gps.PACKET_SET:
                    continue
                if watcher.data["class"] == "POLL":
                    break
                output.write(gps.polybytes(watcher.bresponse))
            # TestSession.run stops gpsd when the feed is over; hold it until "end".
            session.cleanup = lambda: None
            session.run()
            expect("end")
        finally:
            stop_gpsd()
        """
}
