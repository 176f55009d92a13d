"""pycline.app"""
