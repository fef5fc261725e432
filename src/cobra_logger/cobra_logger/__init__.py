"""COBRA rosbag2 (MCAP) logger with crash-safe splitting and a recovery command."""
