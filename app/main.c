#include <stdio.h>

int main(void)
{
    puts("kernelscope " KS_VERSION);
    return 0;
}
