/// `petspot-location` as a program: what its executable runs, and the
/// multi-call `petspot` binary when called by that name.
public enum PetSpotLocationProgram {
    /// Parses the command line, runs the command, exits with its code (SPEC §6).
    public static func main() async {
        await PetSpotLocationCommand.main()
    }
}
