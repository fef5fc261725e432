"""Validation report from COBRA / T-Snake rosbags (sim and robot), without rclpy."""
