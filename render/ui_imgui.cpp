// The overlay UI with Dear ImGui (ui.h). Panels sit in a column on the right
// whose sizes follow the frame; the user can move and collapse them. The
// layout is applied again whenever the frame size or the set of panels
// changes, so nothing is left outside a resized window.
#include "render/ui.h"
#include "render/ui_plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <new>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

namespace {

const char *const KS_FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

enum Panel { P_SCENE, P_STAGES, P_TABLE, P_PLOT, P_COLORBAR, P_ROOF, P_HW, P_HELP, P_NUM };
const char *const PANEL_NAMES[P_NUM] = {"Scene and kernel", "Stage timings", "A/B",          "Convergence",
                                        "Colour bar",       "Roofline (G)",  "Hardware (K)", "Keys and mouse (H)"};

} // namespace

struct ks_ui {
    ImGuiContext *ctx;
    GLFWwindow *glfw;     // NULL when headless
    char font_path[512];  // TrueType file, "" when none was found
    float font_px;        // size the atlas was built for (framebuffer pixels)
    float font_scale;     // framebuffer pixels per window unit it was built for
    int layout_w, layout_h, layout_sig; // what the column was laid out for
    int help_shown;       // last help state applied
    int roof_shown;       // last roofline open state applied
    int hw_shown;         // last Hardware panel open state applied
    int strip;            // the timeline strip takes the bottom of the picture area (ks_ui_set_strip)
    float natural[P_NUM]; // content height each panel asked for last frame (0: not known)
    int nrects;
    ks_ui_rect rects[KS_UI_MAX_PANELS];
    float key_h;          // the Scene panel's height down to its key rows' end, measured last frame (0: not yet)
    int nshown;           // the Scene panel's rows drawn in sight last frame (ks_ui_row_shown)
    char shown[KS_VIEW_FIELDS + 1][KS_VIEW_NAME];
    int have_pic;         // pic holds where the picture is (ks_ui_set_picture_rect)
    float pic[4];         // x, y, w, h: framebuffer pixels, origin bottom-left
};

static float font_px_for(int fb_w, int fb_h)
{
    float px = fminf((float)fb_h / 54.0f, (float)fb_w / 62.0f);
    return floorf(fminf(fmaxf(px, 13.0f), 28.0f));
}

static float column_width(int fb_w, float font_px)
{
    return floorf(fminf(font_px * 24.0f, 0.45f * (float)fb_w));
}

/* The atlas at px framebuffer pixels (crisp on a scaled display), drawn at
 * 1/scale in ImGui's window units. */
static void build_font(ks_ui *ui, float px, float scale)
{
    ImGuiIO &io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFont *f = NULL;
    if (ui->font_path[0]) f = io.Fonts->AddFontFromFileTTF(ui->font_path, px);
    if (f == NULL) {
        ImFontConfig cfg;
        cfg.SizePixels = px; // the built-in font is a bitmap font drawn at 13 px; scaled here
        io.Fonts->AddFontDefault(&cfg);
    }
    ui->font_px = px;
    ui->font_scale = scale;
    io.FontGlobalScale = 1.0f / scale;
    ImGui::GetStyle() = ImGuiStyle();
    ImGui::StyleColorsDark();
    ImGuiStyle &st = ImGui::GetStyle();
    st.ScaleAllSizes(px / scale / 13.0f);
    px /= scale; // window units from here on
    st.WindowRounding = 3.0f;
    st.ItemSpacing.y = floorf(px * 0.2f);
    st.Colors[ImGuiCol_WindowBg].w = 0.82f;
    st.WindowMinSize = ImVec2(4.0f * px, px + 2.0f * st.FramePadding.y); // a title bar: the layout may fold a panel that far
}

ks_status ks_ui_create(const ks_ui_desc *desc, ks_ui **out)
{
    if (out == NULL) return ks_fail(KS_ERR_INVALID, "ui: no output pointer");
    *out = NULL;
    const ks_ui_desc d = desc ? *desc : ks_ui_desc{}; // every field's zero is its default
    ks_window *win = d.window;
    char *notice = d.notice;
    const size_t notice_cap = d.notice_cap;
    if (notice && notice_cap) notice[0] = '\0';
    ks_ui *ui = new (std::nothrow) ks_ui();
    if (ui == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "ui: out of memory");
    IMGUI_CHECKVERSION();
    ui->ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(ui->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = NULL; // no imgui.ini beside the user's files
    io.LogFilename = NULL;
    // KERNELSCOPE_FONT names another TrueType file (a language the default lacks)
    const char *font = getenv("KERNELSCOPE_FONT");
    if (font == NULL || font[0] == '\0') font = KS_FONT_PATH;
    if (access(font, R_OK) == 0) snprintf(ui->font_path, sizeof ui->font_path, "%s", font);
    else if (notice && notice_cap)
        snprintf(notice, notice_cap, "ui: font %s not found (%s); using the built-in font", font,
                 font == KS_FONT_PATH ? "install fonts-dejavu-core" : "KERNELSCOPE_FONT");
    ui->glfw = (GLFWwindow *)ks_window_glfw(win);
    if (ui->glfw != NULL && !ImGui_ImplGlfw_InitForOpenGL(ui->glfw, true)) {
        ImGui::DestroyContext(ui->ctx);
        delete ui;
        return ks_fail(KS_ERR_GL, "ui: ImGui GLFW backend failed to start");
    }
    if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
        if (ui->glfw) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext(ui->ctx);
        delete ui;
        return ks_fail(KS_ERR_GL, "ui: ImGui OpenGL 3 backend failed to start (GL entry points)");
    }
    *out = ui;
    return KS_OK;
}

void ks_ui_destroy(ks_ui *ui)
{
    if (ui == NULL) return;
    ImGui::SetCurrentContext(ui->ctx);
    ImGui_ImplOpenGL3_Shutdown();
    if (ui->glfw) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext(ui->ctx);
    delete ui;
}

/* The timeline strip's height in framebuffer pixels (0 when it is not shown). */
static float strip_px(const ks_ui *ui, int fb_w, int fb_h, int visible)
{
    if (ui == NULL || !ui->strip || !visible) return 0.0f;
    return fminf(ks_ui_strip_height(font_px_for(fb_w, fb_h)), floorf(0.4f * (float)fb_h));
}

void ks_ui_picture_area(const ks_ui *ui, int fb_w, int fb_h, int visible, float area[4])
{
    float col = visible ? column_width(fb_w, font_px_for(fb_w, fb_h)) : 0.0f;
    const float strip = strip_px(ui, fb_w, fb_h, visible);
    area[0] = 0.0f;
    area[1] = strip; /* origin bottom-left: the strip lies under the picture */
    area[2] = fmaxf(0.0f, (float)fb_w - col);
    area[3] = fmaxf(0.0f, (float)fb_h - strip);
}

void ks_ui_set_strip(ks_ui *ui, int on)
{
    if (ui) ui->strip = on != 0;
}

float ks_ui_font_px(const ks_ui *ui) { return ui ? ui->font_px : 0.0f; }

int ks_ui_row_shown(const ks_ui *ui, const char *label)
{
    for (int i = 0; ui && i < ui->nshown; ++i)
        if (strcmp(ui->shown[i], label) == 0) return 1;
    return 0;
}

void ks_ui_set_picture_rect(ks_ui *ui, const float rect[4])
{
    if (ui == NULL) return;
    ui->have_pic = rect != NULL;
    if (rect) memcpy(ui->pic, rect, sizeof ui->pic);
}

int ks_ui_panel_rects(const ks_ui *ui, ks_ui_rect *rects, int max)
{
    if (ui == NULL) return 0;
    int n = ui->nrects < max ? ui->nrects : max;
    for (int i = 0; i < n; ++i) rects[i] = ui->rects[i];
    return n;
}

namespace {

struct Frame {
    ks_ui *ui;
    const ks_view *v;
    ks_ui_actions *out;
    float scale; // framebuffer pixels per ImGui unit
};

void push_key(ks_ui_actions *out, int key, int times = 1)
{
    for (int i = 0; i < times && out->nkeys < KS_UI_MAX_KEYS; ++i) {
        out->keys[out->nkeys].key = key;
        out->keys[out->nkeys].shift = 0;
        ++out->nkeys;
    }
}

void record_rect(Frame &f, const char *name)
{
    ks_ui *ui = f.ui;
    if (ui->nrects >= KS_UI_MAX_PANELS) return;
    ks_ui_rect &r = ui->rects[ui->nrects++];
    snprintf(r.name, sizeof r.name, "%s", name);
    ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    r.x = p.x * f.scale;
    r.y = p.y * f.scale;
    r.w = s.x * f.scale;
    r.h = s.y * f.scale;
}

bool is_control(const ks_view *v, const char *label)
{
    for (int i = 0; i < v->ncontrols; ++i)
        if (strcmp(v->controls[i].label, label) == 0) return true;
    return false;
}

/* The rows a picture of the run must show whatever the panel's height (a saved
 * frame cannot scroll): what runs (the variant under the names scenes give it)
 * and where (device, backend) how fast (fps). They come first, after the scene's
 * name; the rest follows in the scene's order. */
const char *const KEY_ROWS[] = {"variant", "kernel", "memory", "routine", "device", "backend", "fps"};

bool is_key_row(const char *label)
{
    for (const char *k : KEY_ROWS)
        if (strcmp(k, label) == 0) return true;
    return false;
}

/* Notes that the row just begun with label is in sight (ks_ui_row_shown). */
void note_shown(ks_ui *ui, const char *label)
{
    if (ImGui::IsItemVisible() && ui->nshown < (int)(sizeof ui->shown / sizeof ui->shown[0]))
        snprintf(ui->shown[ui->nshown++], sizeof ui->shown[0], "%s", label);
}

void field_row(ks_ui *ui, const ks_vfield *fd)
{
    char val[160];
    ks_view_format(fd, val, sizeof val);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", fd->label); // long labels wrap, never cut
    note_shown(ui, fd->label);
    ImGui::TableNextColumn();
    if (fd->unit[0]) ImGui::TextWrapped("%s %s", val, fd->unit);
    else ImGui::TextWrapped("%s", val);
}

void key_rows(ks_ui *ui, const ks_view *v)
{
    if (v->scene[0]) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("scene");
        note_shown(ui, "scene");
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", v->scene);
    }
    for (const char *k : KEY_ROWS) {
        const ks_vfield *fd = ks_view_find(v, k);
        if (fd && !is_control(v, k)) field_row(ui, fd); // a control shows with its buttons, below
    }
}

void field_rows(ks_ui *ui, const ks_view *v, ks_vgroup g)
{
    for (int i = 0; i < v->nfields; ++i) {
        const ks_vfield *fd = &v->fields[i];
        if (fd->group != g || is_control(v, fd->label) || is_key_row(fd->label)) continue; // shown above
        field_row(ui, fd);
    }
}

void control_row(Frame &f, const ks_vcontrol *c, int idx)
{
    ImGui::PushID(idx);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c->label);
    note_shown(f.ui, c->label);
    ImGui::TableNextColumn();
    if (c->key_prev && ImGui::SmallButton("<")) push_key(f.out, c->key_prev);
    if (c->key_prev) ImGui::SameLine();
    if (c->nchoices > 0) {
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x -
                                (c->key_next ? ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.x : 0.0f));
        if (ImGui::BeginCombo("##c", c->value)) {
            for (int j = 0; j < c->nchoices; ++j) {
                bool sel = j == c->current;
                if (ImGui::Selectable(c->choices[j], sel) && !sel) {
                    if (c->choice_key[j]) push_key(f.out, c->choice_key[j]);
                    else if (c->key_next)
                        push_key(f.out, c->key_next, ((j - c->current) % c->nchoices + c->nchoices) % c->nchoices);
                }
                if (sel) ImGui::SetItemDefaultFocus();
            }
            ImGui::EndCombo();
        }
    } else {
        ImGui::TextUnformatted(c->value);
    }
    if (c->key_next) {
        ImGui::SameLine();
        if (ImGui::SmallButton(">")) push_key(f.out, c->key_next);
    }
    ImGui::PopID();
}

void scene_panel(Frame &f)
{
    const ks_view *v = f.v;
    if (ImGui::Button(v->paused ? "Resume" : "Pause")) push_key(f.out, KS_KEY_SPACE);
    ImGui::SameLine();
    if (ImGui::Button("Step")) push_key(f.out, 'N');
    if (!v->no_reset_save) {
        ImGui::SameLine();
        if (ImGui::Button("Reset")) push_key(f.out, 'R');
        ImGui::SameLine();
        if (ImGui::Button("Save")) push_key(f.out, 'S');
    }
    const ImGuiTableFlags tf = ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("fields", 2, tf)) {
        ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthStretch, 0.42f);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.58f);
        key_rows(f.ui, v);
        // how tall the panel must stay for them (window-local, scrolling included): the layout's floor
        const ImGuiStyle &st = ImGui::GetStyle();
        f.ui->key_h = ImGui::GetItemRectMax().y - ImGui::GetWindowPos().y + ImGui::GetScrollY() + st.CellPadding.y +
                      st.WindowPadding.y;
        for (int i = 0; i < v->ncontrols; ++i) control_row(f, &v->controls[i], i);
        field_rows(f.ui, v, KS_VGROUP_KERNEL);
        field_rows(f.ui, v, KS_VGROUP_SCENE);
        field_rows(f.ui, v, KS_VGROUP_FRAME);
        ImGui::EndTable();
    }
}

} // namespace

ks_status ks_ui_frame(ks_ui *ui, const ks_view *v, int fb_w, int fb_h, int visible, int help,
                      ks_ui_actions *out)
{
    if (ui == NULL || v == NULL || out == NULL) return ks_fail(KS_ERR_INVALID, "ui: frame without ui, view or actions");
    memset(out, 0, sizeof *out);
    ui->nrects = 0;
    ui->nshown = 0;
    if (fb_w <= 0 || fb_h <= 0) return KS_OK;
    ImGui::SetCurrentContext(ui->ctx);
    ImGuiIO &io = ImGui::GetIO();

    float scale = 1.0f; // framebuffer pixels per window unit (2 on a scaled display)
    if (ui->glfw) {
        int ww = 0, wh = 0;
        glfwGetWindowSize(ui->glfw, &ww, &wh);
        if (ww > 0) scale = fmaxf(1.0f, (float)fb_w / (float)ww);
    }
    const float fb_px = font_px_for(fb_w, fb_h);
    if (fb_px != ui->font_px || scale != ui->font_scale) {
        build_font(ui, fb_px, scale);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        if (!ImGui_ImplOpenGL3_CreateFontsTexture()) return ks_fail(KS_ERR_GL, "ui: cannot upload the font atlas");
    }
    ImGui_ImplOpenGL3_NewFrame();
    if (ui->glfw) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        io.DisplaySize = ImVec2((float)fb_w, (float)fb_h);
        io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
        io.DeltaTime = 1.0f / 60.0f;
    }
    // the GLFW backend works in window units; the layout in framebuffer pixels / scale
    Frame f{ui, v, out, scale};
    const float W = io.DisplaySize.x, H = io.DisplaySize.y;
    const float px = fb_px / scale; // font size in window units
    ImGui::NewFrame();

    const ImGuiStyle &st = ImGui::GetStyle();
    const float m = floorf(px * 0.4f);
    const float col = column_width(fb_w, fb_px) / f.scale;
    const float title = ImGui::GetFrameHeight();
    const float line = ImGui::GetTextLineHeightWithSpacing() + 2.0f * st.CellPadding.y;
    const float pad = 2.0f * st.WindowPadding.y;

    bool present[P_NUM] = {visible != 0,          visible && v->nstages > 0, visible && v->table.ncols > 0,
                           visible && v->plot.n > 1, visible && v->colorbar.on, visible && v->roof.on,
                           visible && v->hw.on,    visible || help};
    const int roof = v->roof.show != 0;
    const int hw = v->hw.open != 0;
    float want[P_NUM] = {0};
    int nctl_lines = v->ncontrols + 2; // the buttons, the scene's name
    want[P_SCENE] = title + pad + line * (float)(v->nfields + nctl_lines) + ImGui::GetFrameHeight();
    want[P_STAGES] = title + pad + line * (float)(v->nstages + 1 + (ks_view_find(v, KS_VIEW_SOLVER_SHARE) != nullptr));
    want[P_TABLE] = title + pad + line * (float)(v->table.nrows + 2);
    want[P_PLOT] = title + pad + line * 2.0f + px * 5.0f;
    want[P_COLORBAR] = title + pad + line * 2.0f + ImGui::GetFrameHeight() * (v->colorbar.hist_n > 0 ? 3.0f : 1.0f);
    want[P_ROOF] = roof ? title + pad + line + px * 12.0f : title;
    want[P_HW] = hw ? title + pad + line * (float)(2 * v->hw.nrows + 6) : title;
    want[P_HELP] = help ? title + pad + line * (float)(ks_ui_count_lines(v->help_global) + ks_ui_count_lines(v->help_scene) + 3)
                        : title;
    // what the panels measured last frame beats the estimate (the plot fills what it gets)
    for (int p = 0; p < P_NUM; ++p)
        if (ui->natural[p] > 0.0f && p != P_PLOT && p != P_ROOF && (p != P_HELP || help) && (p != P_HW || hw))
            want[p] = ui->natural[p]; // window-local: the title bar included
    // the frame H opens the help: its height measured now, so that this frame already has the
    // settled size (the estimate above, off by a wrapped line or a scroll bar, would wrap and
    // place the text differently for that one frame)
    if (help && help != ui->help_shown) want[P_HELP] = ks_ui_measure_help(v, fmaxf(W - col - 2.0f * m, 4.0f * px), title);
    // fit the column: the scene panel gives up height first, down to 40% of the
    // column, then the plot; then every panel in proportion, down to its title
    float hgt[P_NUM] = {0};
    float avail = H - m, sum = 0.0f, rest = 0.0f;
    for (int p = 0; p < P_NUM; ++p) {
        if (!present[p]) continue;
        if (p == P_HELP && help) continue; // the open help goes over the picture
        hgt[p] = p == P_HELP ? title : floorf(want[p]);
        avail -= m;
        sum += hgt[p];
    }
    if (sum > avail && present[P_SCENE]) {
        const float keep = fminf(hgt[P_SCENE], fmaxf(title + pad + 2.0f * line, floorf(0.4f * avail)));
        const float give = fminf(hgt[P_SCENE] - keep, sum - avail);
        hgt[P_SCENE] -= give;
        sum -= give;
    }
    if (sum > avail && present[P_PLOT]) { // then the plot, down to a small curve
        const float keep = fminf(hgt[P_PLOT], title + pad + 2.0f * line + 2.0f * px);
        const float give = fminf(hgt[P_PLOT] - keep, sum - avail);
        hgt[P_PLOT] -= give;
        sum -= give;
    }
    if (sum > avail && present[P_ROOF] && roof) { // then the roofline, down to a small plot
        const float keep = fminf(hgt[P_ROOF], title + pad + line + 8.0f * px);
        const float give = fminf(hgt[P_ROOF] - keep, sum - avail);
        hgt[P_ROOF] -= give;
        sum -= give;
    }
    if (sum > avail && present[P_HW] && hw) { // then the Hardware panel, down to a few rows (it scrolls)
        const float keep = fminf(hgt[P_HW], title + pad + 6.0f * line);
        const float give = fminf(hgt[P_HW] - keep, sum - avail);
        hgt[P_HW] -= give;
        sum -= give;
    }
    if (sum > avail) {
        // every panel in proportion, down to its title; the scene panel down to its key rows (a
        // saved frame cannot scroll to them): measured last frame, else a line each
        float floor_h[P_NUM];
        int nkey = v->scene[0] != 0;
        for (const char *k : KEY_ROWS) nkey += ks_view_find(v, k) != nullptr && !is_control(v, k);
        const float key_h = ui->key_h > 0.0f ? ui->key_h : title + pad + ImGui::GetFrameHeight() + line * (float)nkey;
        for (int p = 0; p < P_NUM; ++p) floor_h[p] = title;
        floor_h[P_SCENE] = fminf(hgt[P_SCENE], fmaxf(title, ceilf(key_h)));
        for (int p = 0; p < P_NUM; ++p)
            if (present[p] && hgt[p] > 0.0f) rest += hgt[p] - floor_h[p];
        const float k = rest > 0.0f ? fminf(1.0f, (sum - avail) / rest) : 1.0f;
        for (int p = 0; p < P_NUM; ++p)
            if (present[p] && hgt[p] > 0.0f) hgt[p] = floorf(hgt[p] - (hgt[p] - floor_h[p]) * k);
    }
    int sig = 0;
    for (int p = 0; p < P_NUM; ++p) sig |= present[p] << p;
    for (int p = 0; p < P_NUM; ++p) sig = sig * 31 + (int)(want[p] / (0.5f * px));
    ImGuiCond cond = ImGuiCond_FirstUseEver;
    if (fb_w != ui->layout_w || fb_h != ui->layout_h || sig != ui->layout_sig || help != ui->help_shown ||
        roof != ui->roof_shown || hw != ui->hw_shown) {
        cond = ImGuiCond_Always;
        ui->layout_w = fb_w;
        ui->layout_h = fb_h;
        ui->layout_sig = sig;
    }
    const bool help_changed = help != ui->help_shown;
    ui->help_shown = help;
    const bool roof_changed = roof != ui->roof_shown;
    ui->roof_shown = roof;
    const bool hw_changed = hw != ui->hw_shown;
    ui->hw_shown = hw;

    // the timeline strip under the picture (behind the panels, like the captions)
    if (visible && v->timeline.on) {
        const float sh = strip_px(ui, fb_w, fb_h, visible) / scale;
        if (sh > 0.0f) ks_ui_strip(v, 0.0f, H - sh, fmaxf(W - col, 4.0f * px), sh);
    }

    // the view's captions over the picture, with the panels (under them: drawn first)
    if (visible && ui->have_pic && v->nlabels > 0) {
        ImDrawList *dl = ImGui::GetBackgroundDrawList();
        const float x0 = ui->pic[0] / scale, y0 = ((float)fb_h - ui->pic[1] - ui->pic[3]) / scale;
        const float pw = ui->pic[2] / scale, ph = ui->pic[3] / scale, gap = floorf(px * 0.25f);
        for (int i = 0; i < v->nlabels; ++i) {
            const ks_vlabel *l = &v->labels[i];
            const ImVec2 size = ImGui::CalcTextSize(l->text);
            // inside the picture: a caption at its right or bottom edge moves in
            const float x = fminf(x0 + l->x * pw + gap, x0 + pw - size.x - 2.0f * gap);
            const float y = fminf(y0 + l->y * ph + gap, y0 + ph - size.y - 2.0f * gap);
            const ImVec2 a(fmaxf(x, x0), fmaxf(y, y0));
            dl->AddRectFilled(ImVec2(a.x - gap, a.y - gap * 0.5f), ImVec2(a.x + size.x + gap, a.y + size.y + gap * 0.5f),
                              IM_COL32(0, 0, 0, 170), 3.0f);
            dl->AddText(a, IM_COL32(255, 255, 255, 255), l->text);
        }
    }
    const ImGuiWindowFlags wf = ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    float top = m; // below the banner: where the open help goes
    if (v->message[0]) {
        // over the picture, left of the column whenever a panel is in it
        float aw = fmaxf(W - (visible || help ? col : 0.0f) - 2.0f * m, 4.0f * px);
        ImGui::SetNextWindowPos(ImVec2(m, m), ImGuiCond_Always);
        ImGui::SetNextWindowSize(ImVec2(aw, 0.0f), ImGuiCond_Always);
        // an error in red; a notice of something done ("saved ...") in a calm blue
        const bool notice = v->message_kind == KS_VMSG_NOTICE;
        ImGui::PushStyleColor(ImGuiCol_WindowBg, notice ? IM_COL32(30, 70, 120, 235) : IM_COL32(170, 30, 30, 235));
        ImGui::Begin("##message", NULL,
                     wf | ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_AlwaysAutoResize);
        ImGui::PushTextWrapPos(aw - st.WindowPadding.x);
        ImGui::TextUnformatted(v->message);
        ImGui::PopTextWrapPos();
        record_rect(f, "message");
        top = m + ImGui::GetWindowSize().y + m;
        ImGui::End();
        ImGui::PopStyleColor();
    }
    float y = m;
    for (int p = 0; p < P_NUM; ++p) {
        if (!present[p]) continue;
        const float h = fmaxf(title, fminf(hgt[p], H - y - m));
        if (p == P_HELP && help) {
            // open help: over the picture, below the banner, as large as it needs
            const float help_w = fmaxf(W - col - 2.0f * m, 4.0f * px);
            ImGui::SetNextWindowPos(ImVec2(m, top), cond);
            ImGui::SetNextWindowSize(ImVec2(help_w, fmaxf(title, fminf(want[P_HELP], H - top - m))), cond);
        } else {
            ImGui::SetNextWindowPos(ImVec2(W - col + m, y), cond);
            ImGui::SetNextWindowSize(ImVec2(col - 2.0f * m, h), cond);
            y += h + m;
        }
        if (p == P_HELP && (help_changed || cond == ImGuiCond_Always)) ImGui::SetNextWindowCollapsed(!help, ImGuiCond_Always);
        if (p == P_ROOF && (roof_changed || cond == ImGuiCond_Always)) ImGui::SetNextWindowCollapsed(!roof, ImGuiCond_Always);
        if (p == P_HW && (hw_changed || cond == ImGuiCond_Always)) ImGui::SetNextWindowCollapsed(!hw, ImGuiCond_Always);
        // the help's opening frame: its scroll bar from the height measured above, not from a
        // content size ImGui has not seen yet, so that the text wraps as the settled frames wrap it
        ImGuiWindowFlags pf = wf;
        if (p == P_HELP && help && help_changed)
            pf |= want[P_HELP] <= H - top - m ? ImGuiWindowFlags_NoScrollbar : ImGuiWindowFlags_AlwaysVerticalScrollbar;
        if (ImGui::Begin(PANEL_NAMES[p], NULL, pf)) {
            switch (p) {
            case P_SCENE: scene_panel(f); break;
            case P_STAGES: ks_ui_stages_panel(v); break;
            case P_TABLE: ks_ui_table_panel(&v->table); break;
            case P_PLOT: ks_ui_plot_panel(v); break;
            case P_COLORBAR: ks_ui_colorbar_panel(v); break;
            case P_ROOF: ks_ui_roof_panel(v); break;
            case P_HW:
                if (ks_ui_hardware_panel(v)) push_key(out, 'K');
                break;
            default: ks_ui_help_panel(v); break;
            }
            // bottom of the last item, in content coordinates (scrolling included)
            ui->natural[p] = ImGui::GetItemRectMax().y - ImGui::GetWindowPos().y + ImGui::GetScrollY() +
                             st.WindowPadding.y;
        }
        // the help folded or unfolded with the mouse: the same as pressing H
        if (p == P_HELP && cond != ImGuiCond_Always && !help_changed && ImGui::IsWindowCollapsed() == (help != 0))
            push_key(out, 'H');
        // the roofline folded or unfolded with the mouse: the same as pressing G
        if (p == P_ROOF && cond != ImGuiCond_Always && !roof_changed && ImGui::IsWindowCollapsed() == roof)
            push_key(out, 'G');
        // the Hardware panel unfolded with the mouse: a measurement, as K
        if (p == P_HW && cond != ImGuiCond_Always && !hw_changed && !hw && !ImGui::IsWindowCollapsed())
            push_key(out, 'K');
        record_rect(f, PANEL_NAMES[p]);
        ImGui::End();
    }
    out->mouse_captured = io.WantCaptureMouse;
    if (v->hover[0] && !io.WantCaptureMouse && ui->glfw) ImGui::SetTooltip("%s", v->hover);

    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    return KS_OK;
}
