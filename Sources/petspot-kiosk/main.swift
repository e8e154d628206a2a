import PetSpotKioskApp

await PetSpotKioskProgram.main()
