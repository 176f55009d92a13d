"""pycline.terminal"""
