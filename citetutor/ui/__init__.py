"""Shared Streamlit widgets; the only part of citetutor that imports streamlit."""
