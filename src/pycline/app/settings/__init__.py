"""Settings: the files behind them, their shape and checks, keys, switches and the choices read
from them."""
