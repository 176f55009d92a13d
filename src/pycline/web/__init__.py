"""`pycline ui`: Cline's webview as a local web application (aiohttp server + static front end)."""
