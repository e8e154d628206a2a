// PetSpotGpsd: see README.
