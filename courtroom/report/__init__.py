"""Presentation: terminal tables and court records (rich), and the HTML report."""
