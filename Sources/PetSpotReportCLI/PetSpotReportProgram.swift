import ArgumentParser

/// `petspot-report` as a program: what its executable runs, and the
/// multi-call `petspot` binary when called by that name.
public enum PetSpotReportProgram {
    /// Parses the command line and runs the command (ArgumentParser's exit codes).
    public static func main() async {
        await PetSpotReportCommand.main()
    }
}
