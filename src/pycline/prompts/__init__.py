"""pycline.prompts"""
