// PetSpotConfiguration: see README.
