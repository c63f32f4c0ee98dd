from django.urls import path

from quoting.views import designs, tco

app_name = "quoting"
urlpatterns = [
    path("designs/new/", designs.design_new, name="design-new"),
    path("designs/save/", designs.design_save_view, name="design-save"),
    path("designs/tco/", designs.design_tco_panel, name="design-tco"),
    path("designs/cable-schedule.csv", designs.design_cable_schedule_csv,
         name="design-cable-schedule"),
    path("designs/drawing.svg", designs.design_drawing_svg, name="design-drawing"),
    path("tco/", tco.tco_page, name="tco"),
]
