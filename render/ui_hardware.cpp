// The Hardware panel (the counters of one launch of the running kernel, in a
// learner's words, each figure's ncu metric on hover) and the timeline strip
// under the picture (DRAM and SM activity per column, each kernel marked),
// drawn from the view model (render/view.h) inside what ui_imgui.cpp lays out.
#include "render/ui_plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <imgui.h>

namespace {

const ImU32 KS_DRAM_COL = IM_COL32(90, 160, 255, 255);
const ImU32 KS_SM_COL = IM_COL32(255, 160, 60, 255);
const ImVec4 KS_DIM(0.62f, 0.62f, 0.66f, 1.0f);
const ImVec4 KS_WARN(1.0f, 0.72f, 0.35f, 1.0f);

// A kernel's colour in the strip: the same name, the same colour, from frame to frame.
ImU32 mark_colour(const char *name)
{
    unsigned h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; ++p) h = (h ^ *p) * 16777619u;
    static const ImU32 pal[] = {IM_COL32(102, 194, 165, 255), IM_COL32(252, 141, 98, 255),
                                IM_COL32(141, 160, 203, 255), IM_COL32(231, 138, 195, 255),
                                IM_COL32(166, 216, 84, 255),  IM_COL32(255, 217, 47, 255),
                                IM_COL32(229, 196, 148, 255), IM_COL32(179, 179, 179, 255)};
    return pal[h % (sizeof pal / sizeof pal[0])];
}

void dim_text(const char *text)
{
    ImGui::PushStyleColor(ImGuiCol_Text, KS_DIM);
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

} // namespace

int ks_ui_hardware_panel(const ks_view *v)
{
    const ks_vhardware *h = &v->hw;
    const bool pressed = ImGui::Button("Measure (K)");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("measures one launch of the kernel that runs now with the GPU's own counters\n"
                          "(CUPTI's range profiler, kernel replay); the frame waits for it");
    if (h->why[0]) {
        ImGui::PushStyleColor(ImGuiCol_Text, KS_WARN);
        ImGui::TextWrapped("no counters: %s", h->why);
        ImGui::PopStyleColor();
    }
    if (h->status[0]) dim_text(h->status);
    if (h->every[0]) dim_text(h->every);
    if (h->stale) dim_text("what runs changed: measuring it next");
    if (h->what[0]) ImGui::TextWrapped("%s", h->what);
    if (h->kernel[0]) dim_text(h->kernel);
    if (h->nrows > 0) ImGui::Separator();
    const float avail = ImGui::GetContentRegionAvail().x;
    const float x_val = floorf(avail * 0.56f);
    const float x0 = ImGui::GetCursorPosX();
    for (int i = 0; i < h->nrows && i < KS_VIEW_HW_ROWS; ++i) {
        const ks_vhw_row *r = &h->rows[i];
        ImGui::PushID(i);
        ImGui::PushTextWrapPos(x0 + x_val - ImGui::GetStyle().ItemSpacing.x);
        ImGui::TextWrapped("%s", r->label);
        bool hovered = ImGui::IsItemHovered();
        ImGui::PopTextWrapPos();
        ImGui::SameLine(x0 + x_val);
        ImGui::PushTextWrapPos(0.0f);
        if (!r->present) ImGui::TextDisabled("%s", r->value);
        else if (r->unit[0]) ImGui::TextWrapped("%s %s", r->value, r->unit);
        else ImGui::TextWrapped("%s", r->value);
        ImGui::PopTextWrapPos();
        hovered = hovered || ImGui::IsItemHovered();
        if (hovered && r->hover[0]) ImGui::SetTooltip("%s", r->hover);
        if (r->words[0]) {
            ImGui::Indent();
            dim_text(r->words);
            ImGui::Unindent();
        }
        ImGui::PopID();
    }
    return pressed ? 1 : 0;
}

float ks_ui_strip_height(float font_px) { return floorf(font_px * 5.2f); }

void ks_ui_strip(const ks_view *v, float x, float y, float w, float h)
{
    const ks_vtimeline *t = &v->timeline;
    if (!t->on || w < 8.0f || h < 8.0f) return;
    ImDrawList *dl = ImGui::GetBackgroundDrawList();
    const float line = ImGui::GetTextLineHeight(), gap = floorf(line * 0.2f);
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + h), IM_COL32(18, 18, 22, 255));
    char head[2 * KS_VIEW_TEXT];
    if (t->why[0]) {
        snprintf(head, sizeof head, "timeline: %s", t->why);
    } else {
        char dm[24] = "-", sm[24] = "-";
        if (isfinite(t->dram_mean)) snprintf(dm, sizeof dm, "%.0f %%", t->dram_mean);
        if (isfinite(t->sm_mean)) snprintf(sm, sizeof sm, "%.0f %%", t->sm_mean);
        snprintf(head, sizeof head, "timeline, last %.0f ms: DRAM throughput (blue) %s, SM active (orange) %s; %s",
                 t->window_ms, dm, sm, t->note);
    }
    dl->PushClipRect(ImVec2(x, y), ImVec2(x + w, y + h), true);
    dl->AddText(ImVec2(x + gap, y + gap * 0.5f), IM_COL32(210, 210, 215, 255), head);
    const float top = y + line + gap, marks_h = line + gap;
    const float lane_h = floorf((h - (top - y) - marks_h - 2.0f * gap) / 2.0f);
    const int n = t->n < KS_VIEW_STRIP ? t->n : KS_VIEW_STRIP;
    if (n > 0 && lane_h >= 2.0f) {
        const float cw = w / (float)n;
        const float dram_y1 = top + lane_h, sm_y1 = dram_y1 + gap + lane_h;
        dl->AddRectFilled(ImVec2(x, top), ImVec2(x + w, dram_y1), IM_COL32(32, 36, 48, 255));
        dl->AddRectFilled(ImVec2(x, dram_y1 + gap), ImVec2(x + w, sm_y1), IM_COL32(48, 38, 30, 255));
        for (int c = 0; c < n; ++c) {
            const float cx0 = x + cw * (float)c, cx1 = fmaxf(cx0 + 1.0f, x + cw * (float)(c + 1));
            if (isfinite(t->dram[c]))
                dl->AddRectFilled(ImVec2(cx0, dram_y1 - lane_h * fminf(fmaxf(t->dram[c], 0.0f), 100.0f) / 100.0f),
                                  ImVec2(cx1, dram_y1), KS_DRAM_COL);
            if (isfinite(t->sm[c]))
                dl->AddRectFilled(ImVec2(cx0, sm_y1 - lane_h * fminf(fmaxf(t->sm[c], 0.0f), 100.0f) / 100.0f),
                                  ImVec2(cx1, sm_y1), KS_SM_COL);
        }
        const float my0 = sm_y1 + gap, my1 = my0 + marks_h;
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const bool over = mouse.x >= x && mouse.x < x + w && mouse.y >= top && mouse.y < my1 &&
                          !ImGui::GetIO().WantCaptureMouse;
        for (int i = 0; i < t->nmarks && i < KS_VIEW_MARKS; ++i) {
            const ks_vmark *m = &t->marks[i];
            const float mx0 = x + cw * (float)m->x0, mx1 = fmaxf(mx0 + 2.0f, x + cw * (float)m->x1);
            const ImU32 col = mark_colour(m->name);
            dl->AddRectFilled(ImVec2(mx0, my0), ImVec2(mx1, my1), col);
            // the span's edges through the lanes, faint, so a kernel's part of the curves shows
            dl->AddLine(ImVec2(mx0, top), ImVec2(mx0, my0), IM_COL32(255, 255, 255, 40));
            if (m->label) {
                dl->PushClipRect(ImVec2(mx0, my0), ImVec2(mx1, my1), true);
                dl->AddText(ImVec2(mx0 + 2.0f, my0 + gap * 0.5f), IM_COL32(0, 0, 0, 255), m->name);
                dl->PopClipRect();
            }
            if (over && mouse.x >= mx0 && mouse.x < mx1) {
                if (m->count > 1) ImGui::SetTooltip("%s (%d launches back to back)", m->name, m->count);
                else ImGui::SetTooltip("%s", m->name);
            }
        }
        if (over && mouse.y < my0) {
            const int c = (int)((mouse.x - x) / cw);
            if (c >= 0 && c < n)
                ImGui::SetTooltip("DRAM throughput %.0f %% of peak, SM active %.0f %%", t->dram[c], t->sm[c]);
        }
    }
    dl->PopClipRect();
}
