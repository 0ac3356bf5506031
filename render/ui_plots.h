// The panels of the ImGui UI that ui_imgui.cpp lays out, drawn in files of
// their own: the colour bar with the field's histogram and the log-log
// roofline (ui_plots.cpp), the text and table panels (ui_text_panels.cpp),
// the Hardware panel and the timeline strip (ui_hardware.cpp). C++ only.
#ifndef KS_UI_PLOTS_H
#define KS_UI_PLOTS_H

#include "render/view.h"

void ks_ui_colorbar_panel(const ks_view *v);
void ks_ui_roof_panel(const ks_view *v);
/* ui_text_panels.cpp */
void ks_ui_stages_panel(const ks_view *v);
void ks_ui_table_panel(const ks_vtable *t);
void ks_ui_plot_panel(const ks_view *v);
void ks_ui_help_panel(const ks_view *v);
/* The open help's height (window-local, its title bar included) at a width. */
float ks_ui_measure_help(const ks_view *v, float width, float title);
int ks_ui_count_lines(const char *s);
/* ui_hardware.cpp: the Hardware panel (returns 1 when its Measure button was
 * pressed), and the timeline strip in the rectangle x, y, w, h (window units,
 * origin top-left) drawn behind the panels. */
int ks_ui_hardware_panel(const ks_view *v);
void ks_ui_strip(const ks_view *v, float x, float y, float w, float h);
/* The strip's height at this font size (window units). */
float ks_ui_strip_height(float font_px);

#endif
