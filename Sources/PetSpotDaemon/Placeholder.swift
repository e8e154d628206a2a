// PetSpotDaemon: see README.
