"""Quire: cut long textbooks into verified, study-sized sessions."""
