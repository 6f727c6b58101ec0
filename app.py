"""CiteTutor: st.navigation over the pages, sidebar health, one cached Pipeline."""

import streamlit as st

from citetutor.ui.state import get_pipeline, model_health

st.set_page_config(page_title="CiteTutor", page_icon="📚", layout="wide")

PAGES = [
    st.Page("pages/library.py", title="Library", icon=":material/menu_book:", default=True),
    st.Page("pages/tutor.py", title="Tutor", icon=":material/school:"),
    st.Page("pages/quiz.py", title="Quiz", icon=":material/quiz:"),
    st.Page("pages/scan_review.py", title="Scan Review", icon=":material/document_scanner:"),
    st.Page("pages/traces.py", title="Traces", icon=":material/timer:"),
]
# The menu is drawn here, not by Streamlit: with client.showSidebarNavigation off (see
# .streamlit/config.toml) a fresh server's first visit no longer flashes the raw pages/ list.
pages = st.navigation(PAGES, position="hidden")


with st.sidebar:
    for page in PAGES:
        st.page_link(page)
    st.divider()
    pipeline = get_pipeline()
    health = model_health()
    st.caption(pipeline.in_plain_words())
    missing = [role for role, _, ok, _ in health if not ok]
    if missing:
        st.caption(f":red[:material/error:] Not available: {', '.join(missing)} (details below).")
    with st.expander("Models and where they run", expanded=bool(missing)):
        st.caption(pipeline.models_label)
        for role, model, ok, message in health:
            mark = ":green[:material/check_circle:]" if ok else ":red[:material/error:]"
            st.markdown(f"{mark} **{role}** `{model}`", help=message)

pages.run()
