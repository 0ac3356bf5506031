#version 330 core
// Shared vertex shader: positions in framebuffer pixels, origin bottom-left.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
uniform vec2 u_viewport; // framebuffer size in pixels
out vec2 v_uv;
out vec4 v_color;
void main()
{
    v_uv = a_uv;
    v_color = a_color;
    gl_Position = vec4(a_pos / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
