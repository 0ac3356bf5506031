#version 330 core
// Colour bar: v_uv.y runs 0 (lo) .. 1 (hi) through the 256x1 colormap texture.
in vec2 v_uv;
in vec4 v_color;
uniform sampler2D u_cmap;
out vec4 o_color;
void main()
{
    o_color = vec4(texture(u_cmap, vec2(v_uv.y, 0.5)).rgb, 1.0);
}
