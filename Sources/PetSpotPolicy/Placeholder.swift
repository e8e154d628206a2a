// PetSpotPolicy: see README.
