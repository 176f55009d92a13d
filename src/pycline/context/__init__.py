"""pycline.context"""
