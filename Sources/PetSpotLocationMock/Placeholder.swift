// PetSpotLocationMock: see README.
