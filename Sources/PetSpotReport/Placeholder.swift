// PetSpotReport: see README.
