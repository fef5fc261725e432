"""terrain/heightmap as sensor_msgs/PointCloud2 bytes: the deformed soil nodes, one point each,
fields x, y, z [m] (world = odom frame), sinkage [m], pressure [Pa], all float32, little endian.

Plain numpy (no rclpy): the node wraps the bytes in a message, the render script and tests read
them back with `cloud_points`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

HEIGHTMAP_TOPIC = 'terrain/heightmap'
FLOAT32 = 7  # sensor_msgs/PointField.FLOAT32
HEIGHTMAP_FIELDS: tuple[str, ...] = ('x', 'y', 'z', 'sinkage', 'pressure')
POINT_DTYPE = np.dtype([(name, '<f4') for name in HEIGHTMAP_FIELDS])
POINT_STEP = POINT_DTYPE.itemsize  # 20 bytes


class HeightmapCloudError(ValueError):
    """A PointCloud2 that is not a terrain/heightmap (missing field, wrong type or size)."""


def field_layout() -> list[tuple[str, int]]:
    """(name, byte offset) of each field, for PointField(name, offset, FLOAT32, count=1)."""
    return [(name, POINT_DTYPE.fields[name][1]) for name in HEIGHTMAP_FIELDS]


def pack_heightmap(snapshot: Any) -> tuple[bytes, int]:
    """(point data, number of points) of a soil heightmap snapshot (x_m, y_m, z_m, sinkage_m,
    pressure_pa arrays of equal length)."""
    points = np.empty(len(snapshot.x_m), dtype=POINT_DTYPE)
    points['x'], points['y'], points['z'] = snapshot.x_m, snapshot.y_m, snapshot.z_m
    points['sinkage'], points['pressure'] = snapshot.sinkage_m, snapshot.pressure_pa
    return points.tobytes(), len(points)


def cloud_points(fields: list[tuple[str, int, int]], point_step: int, data: bytes, width: int, height: int,
                 is_bigendian: bool = False) -> dict[str, np.ndarray]:
    """The heightmap fields of a PointCloud2 (fields as (name, offset, datatype)) as float arrays;
    HeightmapCloudError names what is missing or malformed."""
    layout = {name: (offset, datatype) for name, offset, datatype in fields}
    missing = [name for name in HEIGHTMAP_FIELDS if name not in layout]
    if missing:
        raise HeightmapCloudError(f"point cloud lacks field(s) {', '.join(missing)}: "
                                  f"a terrain/heightmap has {', '.join(HEIGHTMAP_FIELDS)}")
    wrong = [name for name in HEIGHTMAP_FIELDS if layout[name][1] != FLOAT32]
    if wrong:
        raise HeightmapCloudError(f"point cloud field(s) {', '.join(wrong)} are not FLOAT32")
    count = width * height
    if point_step < 4 or len(data) < count * point_step:
        raise HeightmapCloudError(f'point cloud data holds {len(data)} bytes, fewer than {count} points '
                                  f'of {point_step} bytes')
    dtype = np.dtype({'names': list(HEIGHTMAP_FIELDS), 'formats': ['>f4' if is_bigendian else '<f4'] * 5,
                      'offsets': [layout[name][0] for name in HEIGHTMAP_FIELDS], 'itemsize': point_step})
    points = np.frombuffer(bytes(data[:count * point_step]), dtype=dtype, count=count)
    return {name: points[name].astype(float) for name in HEIGHTMAP_FIELDS}
