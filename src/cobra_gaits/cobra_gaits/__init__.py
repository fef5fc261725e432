"""COBRA gait library (sidewinding, CSV trajectories) and the gait node."""
