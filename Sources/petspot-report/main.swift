import PetSpotReportCLI

await PetSpotReportProgram.main()
