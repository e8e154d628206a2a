// PetSpotProtocol: see README.
