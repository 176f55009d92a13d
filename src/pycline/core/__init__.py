"""pycline.core"""
