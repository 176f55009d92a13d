"""`pycline acp`: the Agent Client Protocol front end (editors drive pycline over stdio).

`protocol` maps pycline's tools, events and settings to ACP v1 shapes; `agent` answers the
client's requests; `turns` runs one ACP session's task across prompts; `client_tools` reads,
writes and runs commands through the editor when it offers to.
"""
