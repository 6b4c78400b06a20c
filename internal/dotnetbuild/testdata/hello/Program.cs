System.Console.WriteLine("hello from an embedded helper");
