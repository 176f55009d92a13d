"""pycline.cli"""
