"""RealSense D435i ingestion and ORB-SLAM3 odometry for COBRA (libraries and the odometry node)."""
