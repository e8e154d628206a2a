import PetSpotLocationCLI

await PetSpotLocationProgram.main()
