"""Evidence about work packets: the lease readback, path overlap and derived packet state."""
