"""COBRA MuJoCo simulation node that publishes the same topics as the hardware."""
