// PetSpotLocationClient: see README.
