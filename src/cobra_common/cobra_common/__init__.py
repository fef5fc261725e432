"""Code shared by every COBRA node: entry-point plumbing and the joint_commands safety rules."""
