"""pycline.storage"""
