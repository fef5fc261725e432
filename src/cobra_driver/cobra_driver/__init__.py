"""COBRA Dynamixel joint driver: Protocol 2.0 codec, servo-bus emulator, driver core and ROS node."""
