import ArgumentParser

/// `petspot-kiosk` as a program: what its executable runs, and the
/// multi-call `petspot` binary when called by that name.
public enum PetSpotKioskProgram {
    /// Parses the command line and serves the kiosk until stopped.
    public static func main() async {
        await KioskCommand.main()
    }
}
