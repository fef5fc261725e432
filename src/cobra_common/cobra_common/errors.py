"""The one startup error of every COBRA node, without rclpy, so libraries can raise it too."""

STARTUP_ERROR_EXIT_CODE = 2


class StartupError(RuntimeError):
    """A node cannot start with the given parameters; the message says how to fix it."""
