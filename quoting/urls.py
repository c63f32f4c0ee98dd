from django.urls import path

from quoting.views import designs

app_name = "quoting"
urlpatterns = [
    path("designs/new/", designs.design_new, name="design-new"),
    path("designs/cable-schedule.csv", designs.design_cable_schedule_csv,
         name="design-cable-schedule"),
    path("designs/drawing.svg", designs.design_drawing_svg, name="design-drawing"),
]
