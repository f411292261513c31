"""Vision: the camera's view of the table (dice, board registration, transparencies, rendering)."""
