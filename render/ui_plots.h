// The two drawn panels of the ImGui UI (ui_imgui.cpp lays them out): the colour
// bar with the field's histogram, and the log-log roofline. C++ only.
#ifndef KS_UI_PLOTS_H
#define KS_UI_PLOTS_H

#include "render/view.h"

void ks_ui_colorbar_panel(const ks_view *v);
void ks_ui_roof_panel(const ks_view *v);

#endif
