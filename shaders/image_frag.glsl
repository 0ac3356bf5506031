#version 330 core
// The picture: nearest texel, alpha forced opaque (scenes may leave it 0).
in vec2 v_uv;
in vec4 v_color;
uniform sampler2D u_tex;
out vec4 o_color;
void main()
{
    o_color = vec4(texture(u_tex, v_uv).rgb, 1.0);
}
