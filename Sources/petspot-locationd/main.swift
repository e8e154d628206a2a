import PetSpotDaemonApp

// The daemon's run (LocationDaemonProgram says how it schedules its work).
LocationDaemonProgram.main()
