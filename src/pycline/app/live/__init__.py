"""A running task as front ends see it: its handle, the commands that drive it, the recorder that
saves it, and the tasks it starts."""
