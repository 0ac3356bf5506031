// The colour bar (with the histogram of the field's values) and the roofline,
// drawn with ImGui's draw list inside the panels ui_imgui.cpp places.
#include "render/ui_plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <imgui.h>

void ks_ui_colorbar_panel(const ks_view *v)
{
    unsigned char lut[256][4];
    ks_colormap_table_rgba(v->colorbar.cmap, lut);
    ImGui::TextWrapped("%s", v->colorbar.label);
    ImDrawList *dl = ImGui::GetWindowDrawList();
    float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetFrameHeight();
    if (v->colorbar.hist_n > 0) {
        // the values' histogram right above the bar, bin i over the colours it
        // was counted for; bar heights log(1 + count) (boundaries make spikes)
        const int n = v->colorbar.hist_n < KS_VIEW_HIST ? v->colorbar.hist_n : KS_VIEW_HIST;
        double mx = 0.0;
        for (int i = 0; i < n; ++i) mx = fmax(mx, v->colorbar.hist[i]);
        const ImVec2 q = ImGui::GetCursorScreenPos();
        const float hh = 2.0f * h;
        const double span = v->colorbar.hi - v->colorbar.lo;
        const double blo = v->colorbar.hist_lo, bw = (v->colorbar.hist_hi - v->colorbar.hist_lo) / n;
        dl->AddRectFilled(q, ImVec2(q.x + w, q.y + hh), IM_COL32(30, 30, 30, 255));
        for (int i = 0; i < n && mx > 0.0 && span > 0.0; ++i) {
            const float x0 = q.x + w * (float)((blo + bw * i - v->colorbar.lo) / span);
            const float x1 = q.x + w * (float)((blo + bw * (i + 1) - v->colorbar.lo) / span);
            const float bh = hh * (float)(log1p(v->colorbar.hist[i]) / log1p(mx));
            if (x1 <= q.x || x0 >= q.x + w || bh <= 0.0f) continue;
            dl->AddRectFilled(ImVec2(fmaxf(x0, q.x), q.y + hh - bh), ImVec2(fminf(x1, q.x + w) - 1.0f, q.y + hh),
                              IM_COL32(200, 200, 200, 255));
        }
        ImGui::Dummy(ImVec2(w, hh));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("values of the %s in %d bins over [%.4g, %.4g]; bar height log(1 + count)",
                              v->colorbar.hist_what, n, v->colorbar.hist_lo, v->colorbar.hist_hi);
    }
    ImVec2 p = ImGui::GetCursorScreenPos();
    const int seg = 64;
    for (int i = 0; i < seg; ++i) {
        const unsigned char *a = lut[i * 255 / seg], *b = lut[(i + 1) * 255 / seg];
        ImU32 ca = IM_COL32(a[0], a[1], a[2], 255), cb = IM_COL32(b[0], b[1], b[2], 255);
        float x0 = p.x + w * (float)i / seg, x1 = p.x + w * (float)(i + 1) / seg;
        dl->AddRectFilledMultiColor(ImVec2(x0, p.y), ImVec2(x1, p.y + h), ca, cb, cb, ca);
    }
    ImGui::Dummy(ImVec2(w, h));
    char lo[32], mid[32], hi[32];
    snprintf(lo, sizeof lo, "%.4g", v->colorbar.lo);
    snprintf(mid, sizeof mid, "%.4g", 0.5 * (v->colorbar.lo + v->colorbar.hi));
    snprintf(hi, sizeof hi, "%.4g", v->colorbar.hi);
    float x0 = ImGui::GetCursorPosX();
    ImGui::TextUnformatted(lo);
    float mw = ImGui::CalcTextSize(mid).x, hw = ImGui::CalcTextSize(hi).x, lw = ImGui::CalcTextSize(lo).x;
    if (w >= lw + mw + hw + 4.0f * ImGui::GetStyle().ItemSpacing.x) {
        ImGui::SameLine(x0 + 0.5f * (w - mw));
        ImGui::TextUnformatted(mid);
    }
    ImGui::SameLine(fmaxf(x0 + w - hw, ImGui::GetCursorPosX()));
    ImGui::TextUnformatted(hi);
}

/* Log-log roofline: x = model FLOPs per model DRAM byte, y = GFLOP/s. The
 * bandwidth ceiling is the slope peak_gbs * x, the FMA ceiling the flat line;
 * a point without flops (histogram) sits at the left edge on its own
 * bandwidth line. */
void ks_ui_roof_panel(const ks_view *v)
{
    const ks_vroof *r = &v->roof;
    const double bw = r->peak_gbs > 0.0 ? r->peak_gbs : 1.0;
    const double fl = r->peak_gflops;
    // the ceilings are labelled on the plot; one line says what the points count
    ImGui::TextWrapped("GFLOP/s vs model flop/B, %s%s%s", r->what[0] ? r->what : "one launch", fl > 0.0 ? "" : "; ",
                       fl > 0.0 ? "" : r->note);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Ceilings measured at start-up: copy bandwidth %.0f GB/s, FP32 FMA %s.\n"
                          "Points: model FLOPs and model DRAM bytes (counts from each kernel's model,\n"
                          "not hardware counters) over the measured time.",
                          bw, fl > 0.0 ? "measured" : "not measured");
    double xlo = 1e30, xhi = 0.0, ylo = 1e30, yhi = 0.0;
    const double ridge = fl > 0.0 ? fl / bw : 1.0;
    xlo = fmin(xlo, ridge);
    xhi = fmax(xhi, ridge);
    for (int i = 0; i < r->n; ++i) {
        const ks_vroof_point *q = &r->pts[i];
        const double gf = q->flops / (q->ms * 1e6);
        if (q->flops > 0.0 && q->bytes > 0.0) {
            xlo = fmin(xlo, q->flops / q->bytes);
            xhi = fmax(xhi, q->flops / q->bytes);
        }
        if (gf > 0.0) ylo = fmin(ylo, gf);
    }
    xlo = pow(10.0, floor(log10(xlo)) - 1.0);
    xhi = pow(10.0, ceil(log10(xhi)) + 1.0);
    yhi = pow(10.0, ceil(log10(fl > 0.0 ? fl : bw * xhi)) + 0.3);
    ylo = fmin(ylo, bw * xlo);
    for (int i = 0; i < r->n; ++i)
        if (!(r->pts[i].flops > 0.0)) ylo = fmin(ylo, r->pts[i].bytes / (r->pts[i].ms * 1e6) * xlo);
    ylo = pow(10.0, floor(log10(ylo)));
    ImDrawList *dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    const float h = fmaxf(avail.y, ImGui::GetFrameHeight() * 3.0f), w = avail.x;
    const float lx = log10f((float)xlo), hx = log10f((float)xhi), ly = log10f((float)ylo), hy = log10f((float)yhi);
    auto X = [&](double x) { return p.x + w * (log10f((float)x) - lx) / (hx - lx); };
    auto Y = [&](double y) { return p.y + h - h * (log10f((float)y) - ly) / (hy - ly); };
    const ImU32 axis = IM_COL32(150, 150, 150, 255), ceil_c = IM_COL32(240, 200, 80, 255);
    dl->PushClipRect(p, ImVec2(p.x + w, p.y + h), true);
    dl->AddRect(p, ImVec2(p.x + w, p.y + h), axis);
    for (double d = xlo; d <= xhi * 1.01; d *= 10.0) dl->AddLine(ImVec2(X(d), p.y + h - 4.0f), ImVec2(X(d), p.y + h), axis);
    for (double d = ylo; d <= yhi * 1.01; d *= 10.0) dl->AddLine(ImVec2(p.x, Y(d)), ImVec2(p.x + 4.0f, Y(d)), axis);
    const double xr = fl > 0.0 ? ridge : xhi;
    dl->AddLine(ImVec2(X(xlo), Y(bw * xlo)), ImVec2(X(xr), Y(bw * xr)), ceil_c, 2.0f);
    if (fl > 0.0) dl->AddLine(ImVec2(X(ridge), Y(fl)), ImVec2(X(xhi), Y(fl)), ceil_c, 2.0f);
    char t[64];
    snprintf(t, sizeof t, "%.0f GB/s", bw);
    dl->AddText(ImVec2(X(xlo) + 6.0f, Y(bw * xlo) - ImGui::GetTextLineHeight() - 2.0f), ceil_c, t);
    if (fl > 0.0) {
        snprintf(t, sizeof t, "%.0f GFLOP/s", fl);
        dl->AddText(ImVec2(fmaxf(X(ridge), p.x + w - ImGui::CalcTextSize(t).x - 4.0f), Y(fl) + 2.0f), ceil_c, t);
    }
    const float rad = fmaxf(3.0f, ImGui::GetTextLineHeight() * 0.25f);
    for (int i = 0; i < r->n; ++i) {
        const ks_vroof_point *q = &r->pts[i];
        double x = xlo, y;
        if (q->flops > 0.0 && q->bytes > 0.0) {
            x = q->flops / q->bytes;
            y = q->flops / (q->ms * 1e6);
        } else {
            y = q->bytes / (q->ms * 1e6) * xlo; // its GB/s on the bandwidth scale at the left edge
        }
        const bool cur = i == r->current;
        const ImU32 c = cur ? IM_COL32(90, 220, 255, 255) : IM_COL32(200, 200, 200, 255);
        const ImVec2 at(X(x), Y(y));
        if (cur) dl->AddCircleFilled(at, rad * 1.5f, c);
        else dl->AddCircle(at, rad, c, 0, 1.5f);
        float tx = at.x + rad * 2.0f;
        const float tw = ImGui::CalcTextSize(q->name).x;
        if (tx + tw > p.x + w) tx = at.x - rad * 2.0f - tw;
        dl->AddText(ImVec2(tx, at.y - 0.5f * ImGui::GetTextLineHeight()), c, q->name);
    }
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(w, h));
}

