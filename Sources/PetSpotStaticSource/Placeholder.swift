// PetSpotStaticSource: see README.
