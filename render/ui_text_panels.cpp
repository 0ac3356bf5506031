// The panels of the ImGui UI that are text and tables (ui_imgui.cpp lays them
// out): the stage timings, the A/B table, the convergence plot, the key help.
#include "render/ui_plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <imgui.h>

void ks_ui_stages_panel(const ks_view *v)
{
    /* the first thing to read: how much of the wall-clock frame interval the
     * solver gets (not the "frame work" row below: one frame's own work) */
    const ks_vfield *share = ks_view_find(v, KS_VIEW_SOLVER_SHARE);
    const ks_vfield *interval = ks_view_find(v, KS_VIEW_FRAME_INTERVAL);
    if (share && interval && !share->is_text && !interval->is_text)
        ImGui::TextWrapped("solver share %.0f %% of a %.3f ms frame interval", 100.0 * share->value, interval->value);
    if (!ImGui::BeginTable("stages", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 0.5f);
    ImGui::TableSetupColumn("median ms", ImGuiTableColumnFlags_WidthStretch, 0.25f);
    ImGui::TableSetupColumn("min ms", ImGuiTableColumnFlags_WidthStretch, 0.25f);
    ImGui::TableHeadersRow();
    for (int i = 0; i < v->nstages; ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v->stages[i].name);
        if (strcmp(v->stages[i].name, "frame work") == 0 && ImGui::IsItemHovered())
            ImGui::SetTooltip("one frame's own work, solver to picture (GPU span; host clock on the CPU);\n"
                              "the frame interval above is the wall clock from one frame to the next");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", v->stages[i].median_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", v->stages[i].min_ms);
    }
    ImGui::EndTable();
}

void ks_ui_table_panel(const ks_vtable *t)
{
    ImGui::TextWrapped("%s", t->title);
    if (!ImGui::BeginTable("ab", t->ncols + 1, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    for (int c = 0; c < t->ncols; ++c) {
        char h[48];
        if (t->units[c][0]) snprintf(h, sizeof h, "%s %s", t->cols[c], t->units[c]);
        else snprintf(h, sizeof h, "%s", t->cols[c]);
        ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthStretch, 1.0f);
    }
    ImGui::TableHeadersRow();
    for (int r = 0; r < t->nrows; ++r) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (t->rows[r].selected)
            ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_Header));
        ImGui::TextUnformatted(t->rows[r].label);
        if (t->rows[r].note[0]) {
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", t->rows[r].note);
            continue;
        }
        for (int c = 0; c < t->ncols; ++c) {
            char cell[32];
            ks_view_format_value(t->rows[r].cell[c], t->fmts[c], cell, sizeof cell);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(cell);
        }
    }
    ImGui::EndTable();
}

void ks_ui_plot_panel(const ks_view *v)
{
    const int n = v->plot.n;
    float ymin = v->plot.y[0], ymax = v->plot.y[0];
    for (int i = 1; i < n; ++i) {
        ymin = fminf(ymin, v->plot.y[i]);
        ymax = fmaxf(ymax, v->plot.y[i]);
    }
    ImGui::TextWrapped("%s", v->plot.title);
    ImGui::Text("x %.0f .. %.0f   y %.2f .. %.2f", v->plot.x[0], v->plot.x[n - 1], ymin, ymax);
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float h = fmaxf(avail.y, ImGui::GetFrameHeight() * 2.0f);
    ImGui::PlotLines("##plot", v->plot.y, n, 0, NULL, ymin, ymax > ymin ? ymax : ymin + 1.0f, ImVec2(avail.x, h));
}

/* Where a "  Key    what it does" line's key ends (the first double space
 * after it), or NULL for another line. */
static const char *help_gap(const char *line, const char *end)
{
    if (!(line[0] == ' ' && line[1] == ' ')) return NULL;
    const char *k = line + 2;
    while (k < end && !(k[0] == ' ' && k + 1 < end && k[1] == ' ')) ++k;
    return k < end ? k : NULL;
}

/* "  Key    what it does" lines as a two-column table (the proportional font
 * cannot line up spaces); other lines as they are. The key column's width is
 * measured here, from the text, not left to the table: a table fits its
 * columns to what the previous frame drew, so on the frame the help opens
 * (H) every row would be cut to the first characters of its key. */
static void help_text(const char *text, int id)
{
    if (text == NULL) return;
    float key_w = 0.0f;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (end == NULL) end = line + strlen(line);
        const char *gap = help_gap(line, end);
        if (gap) key_w = fmaxf(key_w, ImGui::CalcTextSize(line + 2, gap).x);
        line = *end ? end + 1 : end;
    }
    bool table = false;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (end == NULL) end = line + strlen(line);
        const char *gap = help_gap(line, end);
        if (gap && !table) {
            table = ImGui::BeginTable(id ? "help1" : "help0", 2, ImGuiTableFlags_SizingFixedFit);
            if (table) {
                ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed, key_w);
                ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
            }
        } else if (!gap && table) {
            ImGui::EndTable();
            table = false;
        }
        if (gap && table) {
            const char *d = gap;
            while (d < end && *d == ' ') ++d;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(line + 2, gap);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(d, end);
        } else {
            ImGui::TextUnformatted(line, end);
        }
        line = *end ? end + 1 : end;
    }
    if (table) ImGui::EndTable();
}

void ks_ui_help_panel(const ks_view *v)
{
    ImGui::TextWrapped("Mouse: panels move by their title bar and fold with the arrow; "
                       "the buttons and lists in \"Scene and kernel\" do what the keys do.");
    ImGui::Separator();
    help_text(v->help_global, 0);
    help_text(v->help_scene, 1);
}

/* The open help's height (window-local, its title bar included) at a width: its content laid
 * out once in a window off the screen, as the help will lay it out. */
float ks_ui_measure_help(const ks_view *v, float width, float title)
{
    const ImGuiStyle &st = ImGui::GetStyle();
    ImGui::SetNextWindowPos(ImVec2(-4.0f * width, 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(width, 1.0e5f), ImGuiCond_Always);
    float h = 0.0f;
    if (ImGui::Begin("##help_measure", NULL,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings |
                         ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoBackground)) {
        ks_ui_help_panel(v);
        h = ImGui::GetItemRectMax().y - ImGui::GetWindowPos().y + st.WindowPadding.y;
    }
    ImGui::End();
    return title + h;
}

int ks_ui_count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; ++s)
        if (*s == '\n') ++n;
    return n + 1;
}
