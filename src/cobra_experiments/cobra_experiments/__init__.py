"""Paper reproductions and batch runs (LTS, tumbling, DEM) as console scripts; nothing imports this package."""
