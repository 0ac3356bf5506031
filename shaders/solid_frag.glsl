#version 330 core
// Panels, lines and text: per-vertex colour, blended over the picture.
in vec2 v_uv;
in vec4 v_color;
out vec4 o_color;
void main()
{
    o_color = v_color;
}
